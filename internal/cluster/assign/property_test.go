package assign

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// TestPropertyRandomChanges drives Plan through seeded random sequences of
// workers joining, leaving and dying, parallelism changes, operators added
// and removed, coordinator takeovers and completed checkpoints, and checks
// after every step:
//   - every operator's key groups covered exactly once, on live workers,
//     balanced per operator and overall;
//   - the same plan from reordered inputs (determinism);
//   - the epoch up by one exactly when an owner changed, and otherwise the
//     previous assignment itself with no moves;
//   - the moves are exactly the key groups whose owner changed;
//   - stickiness: as few tasks moved as any balanced placement would
//     move (minMovedTasks), and at least the dead workers' tasks;
//   - locality: each rescaled operator's tasks keep as many key groups as
//     any placement with the same task counts per worker would;
//   - restore points kept by continuing tasks, stamped on the others;
//   - Changes agrees with the placement, and Decode(Encode(a)) == a.
func TestPropertyRandomChanges(t *testing.T) {
	seeds, steps := 12, 300
	if testing.Short() {
		seeds = 3
	}
	var total simStats
	for seed := range uint64(seeds) {
		s := newSim(seed)
		for step := range steps {
			s.step(t, fmt.Sprintf("seed %d step %d", seed, step))
		}
		total.add(s.stats)
	}
	t.Logf("%d steps: %+v", seeds*steps, total)
	// A property test that never reaches the interesting paths proves nothing.
	if total.joinMoves == 0 || total.orphans == 0 || total.rescales == 0 || total.noops == 0 || total.balanceMoves == 0 || total.idleJoins == 0 {
		t.Fatalf("the simulation is too tame: %+v", total)
	}
}

type simStats struct {
	// joinMoves: tasks moved to joining workers; orphans: tasks of
	// departed workers; balanceMoves: moves beyond the orphans that
	// balance needed; idleJoins: joins that changed nothing (fewer tasks
	// than workers); rescales, noops: steps of those kinds.
	joinMoves, orphans, balanceMoves, idleJoins, rescales, noops int
}

func (s *simStats) add(o simStats) {
	s.joinMoves += o.joinMoves
	s.orphans += o.orphans
	s.balanceMoves += o.balanceMoves
	s.idleJoins += o.idleJoins
	s.rescales += o.rescales
	s.noops += o.noops
}

type sim struct {
	r               *rand.Rand
	ops             []Operator
	live            []string
	prev            *Assignment
	stamp           Stamp
	nextOp, nextWkr int
	stats           simStats
}

func newSim(seed uint64) *sim {
	s := &sim{r: rand.New(rand.NewPCG(seed, 11)), stamp: Stamp{Generation: 1}}
	for range 1 + s.r.IntN(3) {
		s.addOperator()
	}
	for range 1 + s.r.IntN(3) {
		s.join()
	}
	return s
}

func (s *sim) addOperator() {
	m := 1 + s.r.IntN(40)
	s.ops = append(s.ops, Operator{Name: fmt.Sprintf("op%d", s.nextOp), MaxParallelism: m, Parallelism: 1 + s.r.IntN(min(m, 8))})
	s.nextOp++
}

func (s *sim) join() {
	s.live = append(s.live, fmt.Sprintf("w%d", s.nextWkr))
	s.nextWkr++
}

// change applies a random change to the pipeline or the membership and
// reports its kind.
func (s *sim) change() string {
	switch k := s.r.IntN(10); {
	case k < 2 && len(s.live) < 5:
		s.join()
		return "join"
	case k < 4 && len(s.live) > 1:
		for range 1 + s.r.IntN(len(s.live)-1) {
			i := s.r.IntN(len(s.live))
			s.live = slices.Delete(s.live, i, i+1)
			if s.r.IntN(2) == 0 {
				break
			}
		}
		return "leave"
	case k < 6:
		op := &s.ops[s.r.IntN(len(s.ops))]
		op.Parallelism = 1 + s.r.IntN(min(op.MaxParallelism, 8))
		return "rescale"
	case k < 7 && len(s.ops) < 3:
		s.addOperator()
		return "add"
	case k < 8 && len(s.ops) > 1:
		i := s.r.IntN(len(s.ops))
		s.ops = slices.Delete(s.ops, i, i+1)
		return "remove"
	}
	if s.r.IntN(2) == 0 {
		s.stamp.Generation++ // a new coordinator replans the same pipeline
	}
	return "nothing"
}

func (s *sim) step(t *testing.T, name string) {
	t.Helper()
	kind := "first"
	if s.prev != nil {
		kind = s.change()
	}
	s.stamp.Restore += uint64(s.r.IntN(2)) // a checkpoint completed meanwhile
	name = fmt.Sprintf("%s (%s, %v on %v)", name, kind, s.ops, s.live)
	next, ms, err := Plan(s.prev, s.shuffled(), s.shuffledWorkers(), s.stamp)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	checkPlaced(t, next, s.live)
	again, againMoves, _ := Plan(s.prev, s.shuffled(), s.shuffledWorkers(), s.stamp)
	if !reflect.DeepEqual(again, next) || !reflect.DeepEqual(againMoves, ms) {
		t.Fatalf("%s: reordered inputs planned\n%s, first\n%s", name, layout(again), layout(next))
	}
	checkEncoding(t, name, next)
	if s.prev != nil {
		s.checkChange(t, name, kind, next, ms)
	}
	s.prev = &next
}

func (s *sim) checkChange(t *testing.T, name, kind string, next Assignment, ms []Move) {
	t.Helper()
	prev := *s.prev
	checkEpoch(t, name, kind, prev, next, ms)
	checkMoves(t, name, prev, next, ms)
	checkRestores(t, name, prev, next, s.stamp)
	checkChanges(t, name, prev, next, s.live)
	moved, orphans := movedTasks(prev, next), orphanTasks(prev, next, s.live)
	if best := minMovedTasks(prev, s.ops, s.live); moved != best || moved < orphans {
		t.Fatalf("%s: %d tasks moved, %d needed (%d orphaned):\n%s->\n%s", name, moved, best, orphans, layout(prev), layout(next))
	}
	for _, o := range next.Operators {
		if p := prev.operator(o.Name); p != nil && len(p.Tasks) != len(o.Tasks) {
			checkLocality(t, name, *p, o)
		}
	}
	s.count(kind, prev, next, moved, orphans)
}

func (s *sim) count(kind string, prev, next Assignment, moved, orphans int) {
	s.stats.orphans += orphans
	s.stats.balanceMoves += moved - orphans
	switch {
	case kind == "join" && next.Epoch == prev.Epoch:
		s.stats.idleJoins++
	case kind == "join":
		s.stats.joinMoves += moved
	case kind == "rescale":
		s.stats.rescales++
	case kind == "nothing":
		s.stats.noops++
	}
}

func (s *sim) shuffled() []Operator {
	ops := slices.Clone(s.ops)
	s.r.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
	return ops
}

func (s *sim) shuffledWorkers() []string {
	ws := slices.Clone(s.live)
	s.r.Shuffle(len(ws), func(i, j int) { ws[i], ws[j] = ws[j], ws[i] })
	return ws
}

// checkEpoch: the epoch goes up by one exactly when an owner changed;
// otherwise Plan returned prev itself. A step that changed nothing must
// change nothing.
func checkEpoch(t *testing.T, name, kind string, prev, next Assignment, ms []Move) {
	t.Helper()
	switch {
	case sameOwners(prev, next):
		if !reflect.DeepEqual(prev, next) || ms != nil {
			t.Fatalf("%s: nothing changed, but Plan returned epoch %d (was %d), moves %v", name, next.Epoch, prev.Epoch, ms)
		}
	case kind == "nothing":
		t.Fatalf("%s: nothing changed, but Plan did:\n%s->\n%s", name, layout(prev), layout(next))
	case next.Epoch != prev.Epoch+1:
		t.Fatalf("%s: epoch %d after %d", name, next.Epoch, prev.Epoch)
	}
}

// checkMoves compares ms with the key groups whose owner changed.
func checkMoves(t *testing.T, name string, prev, next Assignment, ms []Move) {
	t.Helper()
	listed := map[string]map[int]Move{}
	for _, m := range ms {
		if m.Range.Len() == 0 || m.From == m.To {
			t.Fatalf("%s: empty move %+v", name, m)
		}
		if listed[m.Operator] == nil {
			listed[m.Operator] = map[int]Move{}
		}
		for kg := m.Range.Start; kg < m.Range.End; kg++ {
			if _, dup := listed[m.Operator][kg]; dup {
				t.Fatalf("%s: key group %d of %s moved twice", name, kg, m.Operator)
			}
			listed[m.Operator][kg] = m
		}
	}
	for _, o := range next.Operators {
		old := make([]string, o.MaxParallelism)
		if p := prev.operator(o.Name); p != nil {
			old = ownerByGroup(*p)
		}
		for kg, w := range ownerByGroup(o) {
			m, ok := listed[o.Name][kg]
			if changed := old[kg] != w; changed != ok || ok && (m.From != old[kg] || m.To != w) {
				t.Fatalf("%s: %s key group %d went %q -> %q, moves say %+v (listed %v)", name, o.Name, kg, old[kg], w, m, ok)
			}
		}
		delete(listed, o.Name)
	}
	if len(listed) > 0 {
		t.Fatalf("%s: moves of operators not in the assignment: %v", name, listed)
	}
}

// checkRestores: continuing tasks keep their restore point, others get s's.
func checkRestores(t *testing.T, name string, prev, next Assignment, s Stamp) {
	t.Helper()
	if sameOwners(prev, next) {
		return
	}
	for _, o := range next.Operators {
		for i, task := range o.Tasks {
			want := s.Restore
			if continues(prev, next, o.Name, i) {
				want = prev.operator(o.Name).Tasks[i].Restore
			}
			if task.Restore != want {
				t.Fatalf("%s: %s task %d restores from %d, want %d", name, o.Name, i, task.Restore, want)
			}
		}
	}
}

// checkChanges: the tasks workers start are the tasks that do not
// continue, and the tasks they stop the previous ones that do not.
func checkChanges(t *testing.T, name string, prev, next Assignment, live []string) {
	t.Helper()
	started, stopped := 0, 0
	for _, w := range live {
		stop, start := Changes(prev, next, w)
		started, stopped = started+len(start), stopped+len(stop)
	}
	wantStart, wantStop := 0, 0
	for _, o := range next.Operators {
		for i := range o.Tasks {
			if !continues(prev, next, o.Name, i) {
				wantStart++
			}
		}
	}
	for _, o := range prev.Operators {
		for i, task := range o.Tasks {
			if slices.Contains(live, task.Worker) && !continues(prev, next, o.Name, i) {
				wantStop++
			}
		}
	}
	if started != wantStart || stopped != wantStop {
		t.Fatalf("%s: Changes starts %d and stops %d tasks, want %d and %d", name, started, stopped, wantStart, wantStop)
	}
}

func checkEncoding(t *testing.T, name string, a Assignment) {
	t.Helper()
	data, err := Encode(a)
	if err != nil {
		t.Fatalf("%s: Encode: %v", name, err)
	}
	b, err := Decode(data)
	if err != nil || !reflect.DeepEqual(b, a) {
		t.Fatalf("%s: Decode(Encode(a)) = %+v, %v", name, b, err)
	}
}

// orphanTasks counts the tasks of operators that keep their parallelism
// whose previous worker is gone: they move whatever the plan.
func orphanTasks(prev, next Assignment, live []string) int {
	n := 0
	for _, o := range next.Operators {
		if p := prev.operator(o.Name); p != nil && len(p.Tasks) == len(o.Tasks) {
			for _, task := range p.Tasks {
				if !slices.Contains(live, task.Worker) {
					n++
				}
			}
		}
	}
	return n
}

// minMovedTasks is the fewest tasks of operators that keep their
// parallelism that any balanced placement of ops on live moves away from
// prev. Why it is a bound: a balanced placement gives worker w q[o][w]
// tasks of operator o, ⌊p/n⌋ or ⌈p/n⌉, with the totals balanced too; it
// keeps at most min(c[o][w], q[o][w]) of the c[o][w] tasks of o that w
// held, and keeps exactly that many when it keeps the right ones. So the
// fewest moves is the tasks minus the largest sum of those minimums over
// every such q, which this enumerates: which workers get the ⌈p/n⌉ of
// each operator.
func minMovedTasks(prev Assignment, ops []Operator, live []string) int {
	n := len(live)
	held := make([][]int, len(ops)) // held[k][w]: tasks of ops[k] live[w] held, if it keeps its parallelism
	tasks := 0
	for k, op := range ops {
		if p := prev.operator(op.Name); p != nil && len(p.Tasks) == op.Parallelism {
			held[k] = make([]int, n)
			for _, task := range p.Tasks {
				if w := slices.Index(live, task.Worker); w >= 0 {
					held[k][w]++
				}
			}
			tasks += op.Parallelism
		}
	}
	extras := make([]int, n)
	var best func(k int) int // the most tasks ops[k:] keep, -1 if none is balanced
	best = func(k int) int {
		if k == len(ops) {
			if slices.Max(extras)-slices.Min(extras) > 1 {
				return -1
			}
			return 0
		}
		floor, r := ops[k].Parallelism/n, ops[k].Parallelism%n
		most := -1
		for mask := range 1 << n {
			if bits.OnesCount(uint(mask)) != r {
				continue
			}
			keep := 0
			for w := range n {
				q := floor + mask>>w&1
				extras[w] += mask >> w & 1
				if held[k] != nil {
					keep += min(held[k][w], q)
				}
			}
			if rest := best(k + 1); rest >= 0 {
				most = max(most, keep+rest)
			}
			for w := range n {
				extras[w] -= mask >> w & 1
			}
		}
		return most
	}
	return tasks - best(0)
}

// checkLocality: a rescaled operator's tasks keep as many key groups as
// any placement with the same number of its tasks on each worker.
func checkLocality(t *testing.T, name string, prev, next OperatorTasks) {
	t.Helper()
	old := ownerByGroup(prev)
	keeps := func(r Range, w string) int {
		n := 0
		for kg := r.Start; kg < r.End; kg++ {
			if old[kg] == w {
				n++
			}
		}
		return n
	}
	room := map[string]int{}
	got := 0
	for _, task := range next.Tasks {
		room[task.Worker]++
		got += keeps(task.Range, task.Worker)
	}
	var best func(i int) int
	best = func(i int) int {
		if i == len(next.Tasks) {
			return 0
		}
		most := -1
		for w, n := range room {
			if n == 0 {
				continue
			}
			room[w]--
			most = max(most, keeps(next.Tasks[i].Range, w)+best(i+1))
			room[w]++
		}
		return most
	}
	if want := best(0); got != want {
		t.Fatalf("%s: rescaled %s keeps %d key groups, a placement with the same counts keeps %d:\n%v ->\n%v", name, next.Name, got, want, prev.Tasks, next.Tasks)
	}
}
