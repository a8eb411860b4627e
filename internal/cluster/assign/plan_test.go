package assign

import (
	"errors"
	"reflect"
	"slices"
	"testing"
)

var (
	twoOps = []Operator{{"a", 128, 4}, {"b", 16, 3}}
	w12    = []string{"w1", "w2"}
	w123   = []string{"w1", "w2", "w3"}
)

// withParallelism returns ops with operator name's parallelism set to p.
func withParallelism(ops []Operator, name string, p int) []Operator {
	ops = slices.Clone(ops)
	for i := range ops {
		if ops[i].Name == name {
			ops[i].Parallelism = p
		}
	}
	return ops
}

// TestPlanChanges starts from the plan of (fromOps, fromWorkers) on no
// previous assignment and checks the plan of the change to (ops, workers):
// its placement and its moves, written out by hand from the rules.
func TestPlanChanges(t *testing.T) {
	cases := []struct {
		name                 string
		fromOps              []Operator
		fromWorkers          []string
		ops                  []Operator
		workers              []string
		wantLayout, wantMove string
		unchanged            bool // the same epoch: nothing to write
	}{{
		name: "no-op", fromOps: twoOps, fromWorkers: w12, ops: twoOps, workers: w12,
		wantLayout: "a: w1 w1 w2 w2\nb: w1 w1 w2\n", unchanged: true,
	}, {
		// 7 tasks on 3 workers: w3 needs 2, so 2 tasks move, one of each
		// operator (per-operator balance), from the workers holding 2.
		name: "join", fromOps: twoOps, fromWorkers: w12, ops: twoOps, workers: w123,
		wantLayout: "a: w1 w3 w2 w2\nb: w1 w3 w2\n",
		wantMove:   "a [32,64) w1->w3\nb [5,10) w1->w3\n",
	}, {
		name: "leave to one", fromOps: twoOps, fromWorkers: w12, ops: twoOps, workers: []string{"w2"},
		wantLayout: "a: w2 w2 w2 w2\nb: w2 w2 w2\n",
		wantMove:   "a [0,64) w1->w2\nb [0,10) w1->w2\n",
	}, {
		// From a: w1 w1 w2 w3, b: w1 w2 w3. w2's a2 goes to w3, which has
		// fewer of a, and b1 to w1, which then has 4 tasks to w3's 3;
		// nothing else moves.
		name: "dead worker", fromOps: twoOps, fromWorkers: w123, ops: twoOps, workers: []string{"w1", "w3"},
		wantLayout: "a: w1 w1 w3 w3\nb: w1 w1 w3\n",
		wantMove:   "a [64,96) w2->w3\nb [5,10) w2->w1\n",
	}, {
		// Each new task lies inside an old one: all stay where they were.
		name: "rescale up", fromOps: twoOps, fromWorkers: w12, ops: withParallelism(twoOps, "a", 8), workers: w12,
		wantLayout: "a: w1 w1 w1 w1 w2 w2 w2 w2\nb: w1 w1 w2\n",
	}, {
		// a becomes [0,42) [42,85) [85,128) over old halves [0,64) w1 and
		// [64,128) w2; w1 must take 1 task of a (b gives it 2 of 3 overall
		// 6), the one with most of its key groups: task 0 (42), then w2
		// keeps 1 and 2 and gets [42,64) of task 1 from w1.
		name: "rescale down", fromOps: twoOps, fromWorkers: w12, ops: withParallelism(twoOps, "a", 3), workers: w12,
		wantLayout: "a: w1 w2 w2\nb: w1 w1 w2\n",
		wantMove:   "a [42,64) w1->w2\n",
	}, {
		name: "rescale down to one", fromOps: twoOps, fromWorkers: w12, ops: withParallelism(twoOps, "a", 1), workers: w12,
		wantLayout: "a: w2\nb: w1 w1 w2\n",
		wantMove:   "a [0,64) w1->w2\n",
	}, {
		// w2 dies while a goes 4 → 2 from a: w1 w1 w2 w3: task 0 [0,64)
		// stays on w1, task 1 [64,128) goes to w3, which keeps [96,128)
		// and restores w2's [64,96); b1 moves as in "dead worker".
		name: "rescale and dead worker", fromOps: twoOps, fromWorkers: w123, ops: withParallelism(twoOps, "a", 2), workers: []string{"w1", "w3"},
		wantLayout: "a: w1 w3\nb: w1 w1 w3\n",
		wantMove:   "a [64,96) w2->w3\nb [5,10) w2->w1\n",
	}, {
		name: "operator added and removed", fromOps: twoOps, fromWorkers: w12, ops: []Operator{{"a", 128, 4}, {"c", 4, 2}}, workers: w12,
		wantLayout: "a: w1 w1 w2 w2\nc: w1 w2\n",
		wantMove:   "c [0,2) ->w1\nc [2,4) ->w2\n",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prev, _ := mustPlan(t, nil, tc.fromOps, tc.fromWorkers, Stamp{Generation: 1})
			next, ms := mustPlan(t, &prev, tc.ops, tc.workers, Stamp{Generation: 2, Restore: 7})
			checkPlaced(t, next, tc.workers)
			if got := layout(next); got != tc.wantLayout {
				t.Errorf("placement:\n%swant:\n%s", got, tc.wantLayout)
			}
			if got := printMoves(ms); got != tc.wantMove {
				t.Errorf("moves:\n%swant:\n%s", got, tc.wantMove)
			}
			wantEpoch := prev.Epoch + 1
			if tc.unchanged {
				wantEpoch = prev.Epoch
			}
			if next.Epoch != wantEpoch {
				t.Errorf("epoch %d, want %d", next.Epoch, wantEpoch)
			}
		})
	}
}

func TestPlanFirst(t *testing.T) {
	a, ms := mustPlan(t, nil, twoOps, w12, Stamp{Generation: 3})
	checkPlaced(t, a, w12)
	if a.Epoch != 1 || a.Generation != 3 {
		t.Errorf("epoch %d generation %d, want 1 and 3", a.Epoch, a.Generation)
	}
	want := "a [0,64) ->w1\na [64,128) ->w2\nb [0,10) ->w1\nb [10,16) ->w2\n"
	if got := printMoves(ms); got != want {
		t.Errorf("moves:\n%swant:\n%s", got, want)
	}
}

// A plan that changes nothing returns the previous assignment as it is,
// even for a new coordinator generation and a newer checkpoint.
func TestPlanNoOpKeepsPrevious(t *testing.T) {
	prev, _ := mustPlan(t, nil, twoOps, w123, Stamp{Generation: 1})
	next, ms, err := Plan(&prev, twoOps, []string{"w3", "w1", "w2"}, Stamp{Generation: 9, Restore: 4})
	if err != nil || ms != nil || !reflect.DeepEqual(next, prev) {
		t.Fatalf("Plan = %+v, %v, %v; want the previous assignment, no moves", next, ms, err)
	}
}

func TestPlanIgnoresInputOrder(t *testing.T) {
	ops := []Operator{{"c", 7, 5}, {"a", 128, 4}, {"b", 16, 3}}
	want, wantMoves := mustPlan(t, nil, ops, []string{"w1", "w2", "w3"}, Stamp{Generation: 1})
	got, gotMoves := mustPlan(t, nil, []Operator{ops[2], ops[0], ops[1]}, []string{"w3", "w1", "w2"}, Stamp{Generation: 1})
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotMoves, wantMoves) {
		t.Errorf("reordered inputs planned\n%s, want\n%s", layout(got), layout(want))
	}
}

// Tasks that continue keep the checkpoint they restored from; tasks that
// move or change range restore from the stamp's.
func TestPlanRestore(t *testing.T) {
	prev, _ := mustPlan(t, nil, twoOps, w12, Stamp{Generation: 1, Restore: 2})
	next, _ := mustPlan(t, &prev, withParallelism(twoOps, "b", 2), w123, Stamp{Generation: 1, Restore: 5})
	for _, o := range next.Operators {
		for i, task := range o.Tasks {
			want := uint64(5)
			if continues(prev, next, o.Name, i) {
				want = 2
			}
			if task.Restore != want {
				t.Errorf("%s task %d on %s restores from %d, want %d\n%s", o.Name, i, task.Worker, task.Restore, want, layout(next))
			}
		}
	}
}

// An assignment that is not balanced (an older coordinator's, or one
// built by hand) is balanced by moving only the excess.
func TestPlanRebalances(t *testing.T) {
	ops := []Operator{{"a", 8, 6}}
	prev := placed(ops, w12, []int{0, 0, 0, 0, 1, 1}) // a: w1 w1 w1 w1 w2 w2
	next, ms := mustPlan(t, &prev, ops, w12, Stamp{Generation: 1})
	checkPlaced(t, next, w12)
	if moved := movedTasks(prev, next); moved != 1 {
		t.Errorf("%d tasks moved, want 1:\n%s%s", moved, layout(next), printMoves(ms))
	}
}

// movedTasks counts the tasks of operators that kept their parallelism
// whose worker changed.
func movedTasks(prev, next Assignment) int {
	moved := 0
	for _, o := range next.Operators {
		p := prev.operator(o.Name)
		if p == nil || len(p.Tasks) != len(o.Tasks) {
			continue
		}
		for i := range o.Tasks {
			if o.Tasks[i].Worker != p.Tasks[i].Worker {
				moved++
			}
		}
	}
	return moved
}

func TestPlanRefuses(t *testing.T) {
	prev, _ := mustPlan(t, nil, twoOps, w12, Stamp{Generation: 4, Restore: 3})
	broken := prev
	broken.Epoch = 0
	cases := []struct {
		name    string
		prev    *Assignment
		ops     []Operator
		workers []string
		stamp   Stamp
		want    error
	}{
		{"no workers", nil, twoOps, nil, Stamp{Generation: 1}, ErrNoWorkers},
		{"empty worker id", nil, twoOps, []string{"w1", ""}, Stamp{Generation: 1}, ErrInput},
		{"worker twice", nil, twoOps, []string{"w1", "w2", "w1"}, Stamp{Generation: 1}, ErrInput},
		{"operator twice", nil, []Operator{{"a", 8, 2}, {"a", 8, 2}}, w12, Stamp{Generation: 1}, ErrInput},
		{"operator without name", nil, []Operator{{"", 8, 2}}, w12, Stamp{Generation: 1}, ErrInput},
		{"parallelism 0", nil, []Operator{{"a", 8, 0}}, w12, Stamp{Generation: 1}, ErrInput},
		{"parallelism above max", nil, []Operator{{"a", 8, 9}}, w12, Stamp{Generation: 1}, ErrInput},
		{"max parallelism too large", nil, []Operator{{"a", MaxMaxParallelism + 1, 2}}, w12, Stamp{Generation: 1}, ErrInput},
		{"generation 0", nil, twoOps, w12, Stamp{}, ErrInput},
		{"max parallelism changed", &prev, []Operator{{"a", 64, 4}, {"b", 16, 3}}, w12, Stamp{Generation: 4, Restore: 3}, ErrInput},
		{"older generation", &prev, twoOps, w12, Stamp{Generation: 3, Restore: 3}, ErrStale},
		{"older restore", &prev, twoOps, w12, Stamp{Generation: 4, Restore: 2}, ErrStale},
		{"invalid previous", &broken, twoOps, w12, Stamp{Generation: 4, Restore: 3}, ErrAssignment},
	}
	for _, tc := range cases {
		if _, _, err := Plan(tc.prev, tc.ops, tc.workers, tc.stamp); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestWorkerTasksAndChanges(t *testing.T) {
	prev, _ := mustPlan(t, nil, twoOps, w12, Stamp{Generation: 1})
	next, _ := mustPlan(t, &prev, twoOps, w123, Stamp{Generation: 1, Restore: 6})
	got := WorkerTasks(next, "w3")
	want := []TaskRef{{"a", 1, Range{32, 64}, 6}, {"b", 1, Range{5, 10}, 6}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("WorkerTasks(w3) = %v, want %v", got, want)
	}
	stop, start := Changes(prev, next, "w1")
	if want := []TaskRef{{"a", 1, Range{32, 64}, 0}, {"b", 1, Range{5, 10}, 0}}; !reflect.DeepEqual(stop, want) || start != nil {
		t.Errorf("Changes(w1) = stop %v start %v, want stop %v and no start", stop, start, want)
	}
	if stop, start := Changes(prev, next, "w3"); stop != nil || !reflect.DeepEqual(start, got) {
		t.Errorf("Changes(w3) = stop %v start %v, want start %v", stop, start, got)
	}
}
