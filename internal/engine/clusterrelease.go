package engine

import (
	"errors"
	"fmt"
	"slices"

	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// ErrReleaseTransactional: a task whose outputs go to a transactional sink
// cannot be released from a running part. Its outbox of the epoch in
// progress would be published by the part at the next completed
// checkpoint, next to the new owner's: such a part is stopped and its
// remaining tasks restarted instead.
var ErrReleaseTransactional = errors.New("a task with a transactional sink cannot be released from a running part")

// ReleaseTasks makes a running cluster part stop running the tasks named
// (operator → task indices), while its other tasks go on without a
// pause. It is how a worker hands ranges over at a new assignment
// (design ../../shared/cluster.md §5.5): the new owner restores them from
// the last completed cluster checkpoint and replays from its positions.
//
// From the return on, the part's sources drop the released tasks' key
// groups like another worker's (filter-on-read), a released task skips
// the records already queued for it (the new owner replays them) and no
// longer sweeps expired state, answers queries or isolates keyless
// records; it still passes barriers, so checkpoints of the part go on,
// and its entries in them are for the caller to leave out. Outputs the
// task emitted before have deterministic ids: the new owner's replay
// repeats them and the sink's duplicate window drops the repeats.
//
// Nothing is released when an error is returned: an unknown or
// not-running task, or ErrReleaseTransactional.
func (p *Pipeline) ReleaseTasks(tasks map[string][]int) error {
	if p.opts.Cluster == nil {
		return errors.New("release tasks: the pipeline is not a cluster part")
	}
	var release []*task
	for name, idxs := range tasks {
		op := p.operatorNamed(name)
		if op == nil {
			return fmt.Errorf("release tasks: no operator %q in the pipeline", name)
		}
		if op.hasTransactionalSink() {
			return fmt.Errorf("release tasks of operator %q: %w", name, ErrReleaseTransactional)
		}
		for _, i := range idxs {
			if i < 0 || i >= len(op.slots) || !op.runsTask(i) {
				return fmt.Errorf("release tasks: operator %q task %d does not run here", name, i)
			}
			release = append(release, op.tasks[op.slots[i]])
		}
	}
	for _, t := range release {
		t.released.Store(true)
	}
	return nil
}

func (op *operator) hasTransactionalSink() bool {
	return slices.ContainsFunc(op.sinks, func(s *sinkRef) bool { return s != nil && s.cfg.Mode == config.ModeTransactional })
}
