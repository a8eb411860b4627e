package assign

import "slices"

// preference is what placing a task on a worker saves: the worker holds
// the task's state, or part of it.
type preference struct {
	worker int // index into the sorted live workers
	// saving is negative, as a cost: a cheapest flow saves the most.
	saving cost
}

// preferences returns, for each task of op, the live workers that hold
// its state under prev, ordered by worker:
//   - op keeps its parallelism: the task's worker, if alive; keeping it
//     saves a task move (which outweighs any key groups) and its key groups;
//   - op's parallelism changed: every live worker that held some of the
//     new task's key groups, saving that many key groups. No task keeps
//     its range, so none counts as a kept task;
//   - op is new: none.
func preferences(prev *Assignment, op Operator, workers []string) [][]preference {
	prefs := make([][]preference, op.Parallelism)
	if prev == nil || prev.operator(op.Name) == nil {
		return prefs
	}
	old := prev.operator(op.Name).Tasks
	live := make(map[string]int, len(workers))
	for w, id := range workers {
		live[id] = w
	}
	if len(old) == op.Parallelism {
		for i, t := range old {
			if w, ok := live[t.Worker]; ok {
				prefs[i] = []preference{{w, cost{tasks: -1, groups: -int64(t.Range.Len())}}}
			}
		}
		return prefs
	}
	for i := range prefs {
		prefs[i] = overlaps(old, rangeForTask(i, op.Parallelism, op.MaxParallelism), live)
	}
	return prefs
}

// overlaps returns the live workers among old's that hold key groups of r,
// and how many each holds.
func overlaps(old []Task, r Range, live map[string]int) []preference {
	held := map[int]int{}
	// old's ranges are sorted and contiguous: find the first that
	// reaches into r, then walk while they start inside it.
	j, _ := slices.BinarySearchFunc(old, r.Start, func(t Task, kg int) int { return t.Range.End - 1 - kg })
	for ; j < len(old) && old[j].Range.Start < r.End; j++ {
		if w, ok := live[old[j].Worker]; ok {
			held[w] += old[j].Range.overlap(r)
		}
	}
	var prefs []preference
	for w, groups := range held {
		prefs = append(prefs, preference{w, cost{groups: -int64(groups)}})
	}
	slices.SortFunc(prefs, func(a, b preference) int { return a.worker - b.worker })
	return prefs
}
