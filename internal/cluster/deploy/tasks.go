package deploy

import (
	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/state"
)

// runTask is one task of the run that wrote a checkpoint: its index and
// range under that run's parallelism and its manifest entries, more than
// one when the engine split its entry (after restoring an unaligned cut).
// It is shipped as one task checkpoint, as a worker ships a task (worker
// part.ship): the outbox keys in the state carry the index.
type runTask struct {
	index   int
	r       state.KeyGroupRange
	entries []checkpoint.TaskEntry
}

// runTasks groups the entries of op into the tasks of the run that wrote
// them. The manifest does not record that run's parallelism: it is the
// operator's in the manifest's config (the run's pipeline file) when that
// fits the entries, else the largest that fits them — with no split entry
// that is one task per entry. Parallelism 1 always fits.
func runTasks(op checkpoint.OperatorEntry, parallelism int) []runTask {
	if tasks, ok := groupAt(op, parallelism); ok {
		return tasks
	}
	for p := min(len(op.Tasks), op.MaxParallelism); p > 1; p-- {
		if tasks, ok := groupAt(op, p); ok {
			return tasks
		}
	}
	tasks, _ := groupAt(op, 1)
	return tasks
}

// groupAt groups the entries of op by the tasks of parallelism p, when
// each task's range is exactly the union of adjacent entries.
func groupAt(op checkpoint.OperatorEntry, p int) ([]runTask, bool) {
	if p < 1 || p > op.MaxParallelism || p > len(op.Tasks) {
		return nil, false
	}
	tasks := make([]runTask, 0, p)
	next := 0 // the entry that starts the next task
	for i := range p {
		t := runTask{index: i, r: state.RangeForTask(i, p, op.MaxParallelism)}
		at := t.r.Start
		for next < len(op.Tasks) && op.Tasks[next].End <= t.r.End {
			e := op.Tasks[next]
			if e.Start != at {
				return nil, false
			}
			t.entries, at = append(t.entries, e), e.End
			next++
		}
		if at != t.r.End {
			return nil, false
		}
		tasks = append(tasks, t)
	}
	return tasks, next == len(op.Tasks)
}

// runParallelism returns each operator's parallelism in the pipeline file
// a checkpoint's manifest records (Manifest.Config), nil when it does not
// parse here (another version's syntax, a file it reads that is not here).
func runParallelism(text string) map[string]int {
	if text == "" {
		return nil
	}
	cfg, _, err := config.Parse([]byte(text), "savepoint.hcl")
	if err != nil {
		return nil
	}
	out := map[string]int{}
	for _, oc := range cfg.Operators {
		out[oc.Name] = oc.Parallelism
	}
	return out
}
