package assign

import (
	"fmt"
	"slices"
	"strings"
)

// Assignment says which worker runs each task of every operator, as one
// coordinator generation decided it at one epoch.
type Assignment struct {
	// Epoch counts the assignments of the pipeline from 1; checkpoints
	// and worker acks carry it so that reports under an older one are
	// ignored (design §5.3).
	Epoch uint64
	// Generation is the coordinator lease generation that wrote it.
	Generation uint64
	// Operators are sorted by name, one entry each.
	Operators []OperatorTasks
}

// OperatorTasks is one operator's tasks: task i is Tasks[i], so the
// parallelism is len(Tasks).
type OperatorTasks struct {
	Name           string
	MaxParallelism int
	Tasks          []Task
}

// Task is one task's placement.
type Task struct {
	// Range is rangeForTask(i, len(Tasks), MaxParallelism), stored so a
	// reader of the record sees the key groups without the formula.
	Range  Range
	Worker string
	// Restore is the completed checkpoint the worker starts the task
	// from; 0 means the task starts empty (no checkpoint completed yet).
	// A task that keeps its worker and range keeps it: it never restarts.
	Restore uint64
}

// TaskRef names one task of an assignment, for a worker's list.
type TaskRef struct {
	Operator string
	Task     int
	Range    Range
	Restore  uint64
}

// Validate checks every rule of an assignment: epoch and generation at
// least 1, operators sorted and unique, each covering its key groups
// exactly once (Covers).
func (a Assignment) Validate() error {
	if a.Epoch == 0 || a.Generation == 0 {
		return fmt.Errorf("%w: epoch %d, generation %d: each must be at least 1", ErrAssignment, a.Epoch, a.Generation)
	}
	for i, op := range a.Operators {
		if i > 0 && a.Operators[i-1].Name >= op.Name {
			return fmt.Errorf("%w: operator %q after %q: operators must be sorted by name and unique", ErrAssignment, op.Name, a.Operators[i-1].Name)
		}
		if err := op.covers(); err != nil {
			return err
		}
	}
	return nil
}

// Covers checks that a has operator op and that op's tasks cover its key
// groups [0, max_parallelism) exactly once, each task its rangeForTask
// range, each on a named worker.
func Covers(a Assignment, op string) error {
	o := a.operator(op)
	if o == nil {
		return fmt.Errorf("%w: no operator %q", ErrAssignment, op)
	}
	return o.covers()
}

func (o OperatorTasks) covers() error {
	m, p := o.MaxParallelism, len(o.Tasks)
	if err := validOperator(Operator{Name: o.Name, MaxParallelism: m, Parallelism: p}); err != nil {
		return fmt.Errorf("%w: %w", ErrAssignment, err)
	}
	next := 0 // the first key group no task covered yet
	for i, t := range o.Tasks {
		want := rangeForTask(i, p, m)
		if t.Range != want || t.Range.Start != next {
			return fmt.Errorf("%w: operator %q task %d covers %s, want %s of [0,%d)", ErrAssignment, o.Name, i, t.Range, want, m)
		}
		if t.Worker == "" {
			return fmt.Errorf("%w: operator %q task %d names no worker", ErrAssignment, o.Name, i)
		}
		next = t.Range.End
	}
	if next != m {
		return fmt.Errorf("%w: operator %q covers [0,%d) of [0,%d)", ErrAssignment, o.Name, next, m)
	}
	return nil
}

// operator returns a's entry for name, or nil.
func (a Assignment) operator(name string) *OperatorTasks {
	i, ok := slices.BinarySearchFunc(a.Operators, name, func(o OperatorTasks, n string) int { return strings.Compare(o.Name, n) })
	if !ok {
		return nil
	}
	return &a.Operators[i]
}

// WorkerTasks lists the tasks a assigns to worker, by operator and task.
func WorkerTasks(a Assignment, worker string) []TaskRef {
	var refs []TaskRef
	for _, o := range a.Operators {
		for i, t := range o.Tasks {
			if t.Worker == worker {
				refs = append(refs, TaskRef{Operator: o.Name, Task: i, Range: t.Range, Restore: t.Restore})
			}
		}
	}
	return refs
}

// Changes lists what worker does when next replaces prev (design §5.5):
// stop, its tasks of prev that do not continue in next, which stop after
// the handover checkpoint's snapshot; start, its tasks of next that do not
// continue from prev, which start from their Restore checkpoint. A task
// continues, running through the change untouched, when its operator
// keeps its parallelism and the task its worker. A rescaled operator's
// tasks all stop and start, even those whose key groups stay local: their
// ranges change.
func Changes(prev, next Assignment, worker string) (stop, start []TaskRef) {
	for _, r := range WorkerTasks(prev, worker) {
		if !continues(prev, next, r.Operator, r.Task) {
			stop = append(stop, r)
		}
	}
	for _, r := range WorkerTasks(next, worker) {
		if !continues(prev, next, r.Operator, r.Task) {
			start = append(start, r)
		}
	}
	return stop, start
}

// continues reports whether task i of operator op runs on the same worker
// over the same key groups in prev and next, so that it need not restart.
func continues(prev, next Assignment, op string, i int) bool {
	p, n := prev.operator(op), next.operator(op)
	if p == nil || n == nil || len(p.Tasks) != len(n.Tasks) || p.MaxParallelism != n.MaxParallelism || i >= len(p.Tasks) {
		return false
	}
	return p.Tasks[i].Worker == n.Tasks[i].Worker
}
