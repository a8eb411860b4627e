package acceptance

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/cluster/assign"
)

// unmovedGroups are the key-group ranges of the tasks that run on in
// next where they ran in prev: same worker, same parallelism
// (assign.Changes).
func unmovedGroups(prev, next assign.Assignment) []assign.Range {
	var out []assign.Range
	for _, id := range workersOf(next) {
		for _, r := range continuingTasks(prev, next, id) {
			out = append(out, r.Range)
		}
	}
	return out
}

// continuingTasks are worker id's tasks of next that continue from prev.
func continuingTasks(prev, next assign.Assignment, id string) []assign.TaskRef {
	_, start := assign.Changes(prev, next, id)
	var out []assign.TaskRef
	for _, r := range assign.WorkerTasks(next, id) {
		if !slices.ContainsFunc(start, func(s assign.TaskRef) bool { return s.Operator == r.Operator && s.Task == r.Task }) {
			out = append(out, r)
		}
	}
	return out
}

// requireUnmovedNotRestarted fails the test when a task that the change
// from prev to a left on its worker at its parallelism was started again
// by that worker for an assignment after prev: ranges that do not move
// never pause for a restart (design ../../../shared/cluster.md §5.5).
func (d *deployment) requireUnmovedNotRestarted(t *testing.T, change string, prev, a seenAssignment) {
	t.Helper()
	for _, id := range workersOf(a.Assignment) {
		kept := continuingTasks(prev.Assignment, a.Assignment, id)
		if len(kept) == 0 {
			continue
		}
		for _, w := range d.workers {
			if w.id != id {
				continue
			}
			for _, s := range w.taskStarts(t) {
				if s.epoch <= prev.Epoch || s.epoch > a.Epoch {
					continue
				}
				for _, k := range kept {
					if slices.Contains(s.indicesOf(t, k.Operator), k.Task) {
						t.Errorf("%s: worker %s restarted task %d (%s), which assignment %d left where assignment %d ran it: %s",
							change, id, k.Task, k.Range, a.Epoch, prev.Epoch, s)
					}
				}
			}
		}
	}
}

// unmovedPauses describes the snapshot pauses of the unmoved key groups
// in the checkpoints completed from the change's start to its last
// "tasks started" line plus settle: the only pause such a range takes.
func unmovedPauses(cs []completion, c change, settle time.Duration) string {
	var worst time.Duration
	n := 0
	for _, cp := range cs {
		if cp.stamp.Before(c.at) || cp.stamp.After(c.started.Add(settle)) {
			continue
		}
		for _, r := range cp.ranges {
			if slices.ContainsFunc(c.unmoved, func(u assign.Range) bool { return r.start >= u.Start && r.end <= u.End }) {
				worst, n = max(worst, r.pause), n+1
			}
		}
	}
	if n == 0 {
		return "no snapshot of them in a checkpoint during the change"
	}
	return fmt.Sprintf("snapshot pause max %s over %d task snapshots", worst.Round(10*time.Microsecond), n)
}
