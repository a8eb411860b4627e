package assign

import (
	"fmt"
	"slices"
	"strings"
)

// Operator is what Plan needs to know of one operator of the pipeline.
type Operator struct {
	Name string
	// MaxParallelism is the operator's number of key groups m; it cannot
	// change without a new state layout.
	MaxParallelism int
	// Parallelism is its number of tasks p, 1..m.
	Parallelism int
}

// Stamp is what the coordinator writes into a new assignment besides the
// placement.
type Stamp struct {
	// Generation is the coordinator's lease generation.
	Generation uint64
	// Restore is the completed checkpoint that tasks starting under the
	// new assignment restore from: the handover checkpoint of a rescale,
	// the latest completed one on failover, 0 before the first.
	Restore uint64
}

// Plan computes the assignment that follows prev (nil for the first) for
// the operators ops on the live workers, and the key-group ranges that
// change owner. The order of ops and workers does not matter. The result:
//
//   - is balanced: per operator and over all operators, the numbers of
//     tasks of any two workers differ by at most one;
//   - moves as little as balance allows: first as few tasks of operators
//     that keep their parallelism as possible (a task on a live worker
//     stays there unless balance needs it elsewhere; a dead worker's
//     tasks go where balance has room, the least loaded survivors), then
//     as few key groups as possible, which for an operator whose
//     parallelism changed places each new task on the workers that held
//     most of its key groups, so the state mostly stays local;
//   - is deterministic: the same inputs give the same output.
//
// When nothing changes (same operators, parallelisms and owners) Plan
// returns prev itself and no moves: there is nothing to write, and the
// epoch stays. Otherwise the epoch is prev's plus one, tasks that continue
// (Changes) keep their Restore and every other task gets s.Restore.
func Plan(prev *Assignment, ops []Operator, workers []string, s Stamp) (Assignment, []Move, error) {
	ops, workers, err := checkInput(prev, ops, workers, s)
	if err != nil {
		return Assignment{}, nil, err
	}
	next := build(prev, ops, place(prev, ops, workers), s)
	if prev != nil && sameOwners(*prev, next) {
		return *prev, nil, nil
	}
	return next, moves(prev, next), nil
}

// build makes the assignment that places ops by owners.
func build(prev *Assignment, ops []Operator, owners [][]string, s Stamp) Assignment {
	next := Assignment{Epoch: 1, Generation: s.Generation}
	if prev != nil {
		next.Epoch = prev.Epoch + 1
	}
	for k, op := range ops {
		o := OperatorTasks{Name: op.Name, MaxParallelism: op.MaxParallelism, Tasks: make([]Task, op.Parallelism)}
		for i := range o.Tasks {
			o.Tasks[i] = Task{Range: rangeForTask(i, op.Parallelism, op.MaxParallelism), Worker: owners[k][i], Restore: s.Restore}
		}
		next.Operators = append(next.Operators, o)
	}
	if prev != nil {
		keepRestores(*prev, next)
	}
	return next
}

// keepRestores gives the tasks of next that continue from prev their
// restore point in prev: they keep running and restore nothing.
func keepRestores(prev, next Assignment) {
	for _, o := range next.Operators {
		for i := range o.Tasks {
			if continues(prev, next, o.Name, i) {
				o.Tasks[i].Restore = prev.operator(o.Name).Tasks[i].Restore
			}
		}
	}
}

// sameOwners reports whether a and b have the same operators with the same
// tasks on the same workers: then b changes nothing.
func sameOwners(a, b Assignment) bool {
	return slices.EqualFunc(a.Operators, b.Operators, func(x, y OperatorTasks) bool {
		return x.Name == y.Name && x.MaxParallelism == y.MaxParallelism &&
			slices.EqualFunc(x.Tasks, y.Tasks, func(s, t Task) bool { return s.Worker == t.Worker })
	})
}

// checkInput validates Plan's arguments and returns sorted copies of ops
// and workers, so that nothing after depends on the caller's order.
func checkInput(prev *Assignment, ops []Operator, workers []string, s Stamp) ([]Operator, []string, error) {
	workers, err := sortedWorkers(workers)
	if err != nil {
		return nil, nil, err
	}
	if ops, err = sortedOperators(ops); err != nil {
		return nil, nil, err
	}
	if s.Generation == 0 {
		return nil, nil, fmt.Errorf("%w: generation 0: a coordinator's generation is at least 1", ErrInput)
	}
	if prev != nil {
		err = checkPrev(*prev, ops, s)
	}
	return ops, workers, err
}

func sortedWorkers(workers []string) ([]string, error) {
	if len(workers) == 0 {
		return nil, fmt.Errorf("%w: the tasks need at least one worker", ErrNoWorkers)
	}
	workers = slices.Sorted(slices.Values(workers))
	for i, w := range workers {
		if w == "" || (i > 0 && workers[i-1] == w) {
			return nil, fmt.Errorf("%w: worker id %q is empty or listed twice", ErrInput, w)
		}
	}
	return workers, nil
}

func sortedOperators(ops []Operator) ([]Operator, error) {
	ops = slices.SortedFunc(slices.Values(ops), func(a, b Operator) int { return strings.Compare(a.Name, b.Name) })
	for i, op := range ops {
		if err := validOperator(op); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInput, err)
		}
		if i > 0 && ops[i-1].Name == op.Name {
			return nil, fmt.Errorf("%w: operator %q listed twice", ErrInput, op.Name)
		}
	}
	return ops, nil
}

// checkPrev checks that prev is valid and that ops and s can follow it.
func checkPrev(prev Assignment, ops []Operator, s Stamp) error {
	if err := prev.Validate(); err != nil {
		return fmt.Errorf("previous assignment: %w", err)
	}
	if s.Generation < prev.Generation {
		return fmt.Errorf("%w: generation %d is older than the previous assignment's %d", ErrStale, s.Generation, prev.Generation)
	}
	for _, o := range prev.Operators {
		for _, t := range o.Tasks {
			if s.Restore < t.Restore {
				return fmt.Errorf("%w: restore checkpoint %d is older than checkpoint %d that operator %q already restored from", ErrStale, s.Restore, t.Restore, o.Name)
			}
		}
	}
	for _, op := range ops {
		if p := prev.operator(op.Name); p != nil && p.MaxParallelism != op.MaxParallelism {
			return fmt.Errorf("%w: operator %q has max_parallelism %d, its state was written with %d; changing it needs a new state layout",
				ErrInput, op.Name, op.MaxParallelism, p.MaxParallelism)
		}
	}
	return nil
}

// validOperator checks one operator's numbers, without a sentinel so that
// Plan and Decode can wrap it with theirs.
func validOperator(op Operator) error {
	switch {
	case op.Name == "":
		return fmt.Errorf("an operator has no name")
	case op.MaxParallelism < 1 || op.MaxParallelism > MaxMaxParallelism:
		return fmt.Errorf("operator %q: max_parallelism %d must be in 1..%d", op.Name, op.MaxParallelism, MaxMaxParallelism)
	case op.Parallelism < 1 || op.Parallelism > op.MaxParallelism:
		return fmt.Errorf("operator %q: parallelism %d must be in 1..max_parallelism (%d)", op.Name, op.Parallelism, op.MaxParallelism)
	}
	return nil
}
