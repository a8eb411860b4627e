package assign

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// savings is what a placement keeps of prev, in Plan's order of priority:
// tasks of operators that keep their parallelism left on their worker,
// then key groups of any operator left on their worker.
type savings struct{ tasks, groups int }

func (s savings) less(o savings) bool {
	return s.tasks < o.tasks || (s.tasks == o.tasks && s.groups < o.groups)
}

// kept measures next against prev by comparing owners key group by key
// group, independently of how Plan computes it.
func kept(prev, next Assignment) savings {
	var s savings
	for _, o := range next.Operators {
		p := prev.operator(o.Name)
		if p == nil {
			continue
		}
		if len(p.Tasks) == len(o.Tasks) {
			for i := range o.Tasks {
				if p.Tasks[i].Worker == o.Tasks[i].Worker {
					s.tasks++
				}
			}
		}
		old, now := ownerByGroup(*p), ownerByGroup(o)
		for kg := range now {
			if old[kg] == now[kg] {
				s.groups++
			}
		}
	}
	return s
}

// ownerByGroup returns the worker of each key group of o.
func ownerByGroup(o OperatorTasks) []string {
	owners := make([]string, o.MaxParallelism)
	for _, t := range o.Tasks {
		for kg := t.Range.Start; kg < t.Range.End; kg++ {
			owners[kg] = t.Worker
		}
	}
	return owners
}

// randomAssignment places ops' tasks on workers drawn at random from pool:
// any valid assignment, balanced or not, as a previous one.
func randomAssignment(r *rand.Rand, ops []Operator, pool []string) Assignment {
	a := Assignment{Epoch: 1, Generation: 1}
	for _, op := range ops {
		o := OperatorTasks{Name: op.Name, MaxParallelism: op.MaxParallelism}
		for i := range op.Parallelism {
			o.Tasks = append(o.Tasks, Task{Range: rangeForTask(i, op.Parallelism, op.MaxParallelism), Worker: pool[r.IntN(len(pool))]})
		}
		a.Operators = append(a.Operators, o)
	}
	return a
}

// bestSavings tries every placement of ops' tasks on workers and returns
// the most any balanced one keeps of prev: the optimum Plan must reach.
func bestSavings(prev Assignment, ops []Operator, workers []string) savings {
	var slots []Operator // one entry per task, in order
	for _, op := range ops {
		for range op.Parallelism {
			slots = append(slots, op)
		}
	}
	choice := make([]int, len(slots))
	best, found := savings{}, false
	for {
		a := placed(ops, workers, choice)
		if balanced(a, workers) {
			if s := kept(prev, a); !found || best.less(s) {
				best, found = s, true
			}
		}
		if !nextChoice(choice, len(workers)) {
			return best
		}
	}
}

// placed builds the assignment that puts task k (counting over ops) on
// workers[choice[k]].
func placed(ops []Operator, workers []string, choice []int) Assignment {
	a := Assignment{Epoch: 1, Generation: 1}
	k := 0
	for _, op := range ops {
		o := OperatorTasks{Name: op.Name, MaxParallelism: op.MaxParallelism}
		for i := range op.Parallelism {
			o.Tasks = append(o.Tasks, Task{Range: rangeForTask(i, op.Parallelism, op.MaxParallelism), Worker: workers[choice[k]]})
			k++
		}
		a.Operators = append(a.Operators, o)
	}
	return a
}

// nextChoice counts choice up in base n; false after the last.
func nextChoice(choice []int, n int) bool {
	for k := range choice {
		if choice[k]++; choice[k] < n {
			return true
		}
		choice[k] = 0
	}
	return false
}

func balanced(a Assignment, workers []string) bool {
	perOp, total := taskCounts(a, workers)
	for _, c := range perOp {
		if spread(c) > 1 {
			return false
		}
	}
	return spread(total) <= 1
}

// TestPlanIsOptimal compares Plan with every balanced placement on small
// random instances: a random previous assignment (often unbalanced, with
// dead workers), random parallelism changes, 1 to 3 live workers. Plan
// must be balanced and keep as much as the best of them.
func TestPlanIsOptimal(t *testing.T) {
	runs := 400
	if testing.Short() {
		runs = 100
	}
	pool := []string{"w0", "w1", "w2", "w3"}
	for seed := range uint64(runs) {
		r := rand.New(rand.NewPCG(seed, 7))
		ops := randomOps(r, 1+r.IntN(2), 4)
		prev := randomAssignment(r, ops, pool)
		for i := range ops {
			if r.IntN(2) == 0 {
				ops[i].Parallelism = 1 + r.IntN(min(4, ops[i].MaxParallelism))
			}
		}
		var workers []string
		for _, i := range r.Perm(len(pool))[:1+r.IntN(3)] {
			workers = append(workers, pool[i])
		}
		slices.Sort(workers)
		name := fmt.Sprintf("seed %d: %v on %v from\n%s", seed, ops, workers, layout(prev))
		next, _, err := Plan(&prev, ops, workers, Stamp{Generation: 1})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !balanced(next, workers) {
			t.Fatalf("%s: unbalanced\n%s", name, layout(next))
		}
		if got, want := kept(prev, next), bestSavings(prev, ops, workers); got != want {
			t.Fatalf("%s: Plan keeps %+v, the best placement %+v:\n%s", name, got, want, layout(next))
		}
	}
}

// randomOps returns n operators named o0.. with up to maxP tasks.
func randomOps(r *rand.Rand, n, maxP int) []Operator {
	ops := make([]Operator, n)
	for i := range ops {
		m := 1 + r.IntN(12)
		ops[i] = Operator{Name: fmt.Sprintf("o%d", i), MaxParallelism: m, Parallelism: 1 + r.IntN(min(maxP, m))}
	}
	return ops
}
