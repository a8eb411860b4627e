package engine

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/state"
)

// A part that releases tasks keeps running the others without a stop:
// records published after the release reach only the kept tasks, a
// checkpoint still completes (the released tasks pass its barrier), and
// the released keys' last outputs are those from before the release.
func TestReleasedTasksStopWhileTheOthersGoOn(t *testing.T) {
	s := newSumSetup(t, 4)
	cfg := s.load(t)
	p, ctx := openPart(t, cfg, []int{0, 1, 2, 3})
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- p.Run(runCtx) }()

	before := sumRecords(2000, 40, 1)
	publishSums(t, p.Reach(), before)
	waitUntil(t, "every record published before the release", func() bool { return p.Stats().Processed == uint64(len(before)) })
	released := []int{2, 3}
	if err := p.ReleaseTasks(map[string][]int{"sum": released}); err != nil {
		t.Fatal(err)
	}
	after := sumRecords(2000, 40, 2)
	kept := recordsOfTasks(cfg, after, []int{0, 1})
	publishSums(t, p.Reach(), after)
	waitUntil(t, "the kept tasks' records published after the release", func() bool {
		return p.Stats().Processed == uint64(len(before)+len(kept))
	})
	if r, err := p.TriggerID(ctx, 3, 1, true); err != nil || r.Error != "" {
		t.Fatalf("checkpoint after the release: %+v, %v", r, err)
	}
	stop()
	if err := <-ran; err != nil {
		t.Fatalf("Run after the stop: %v", err)
	}
	if got, want := p.Stats().Processed, uint64(len(before)+len(kept)); got != want {
		t.Errorf("processed %d records, want %d: the released tasks %v processed records after their release", got, want, released)
	}
	diffSums(t, "last outputs", lastOutputSums(t, cfg), expectedSums(before, kept))
}

// ReleaseTasks refuses what it cannot do and then releases nothing.
func TestReleaseTasksRefusals(t *testing.T) {
	s := newSumSetup(t, 2)
	s.sinkMode = config.ModeTransactional
	cfg := s.load(t)
	p, _ := openPart(t, cfg, []int{1})
	if err := p.ReleaseTasks(map[string][]int{"sum": {1}}); !errors.Is(err, ErrReleaseTransactional) {
		t.Errorf("release with a transactional sink: %v, want ErrReleaseTransactional", err)
	}
	if err := p.ReleaseTasks(map[string][]int{"nope": {0}}); err == nil {
		t.Error("release of an unknown operator accepted")
	}
	if !p.operators[0].runsTask(1) {
		t.Error("a refused release released the task")
	}
}

// openPart opens cfg as a cluster part running the tasks of operator sum,
// with a Persist that keeps nothing; the test's cleanup closes it. The
// context bounds the test.
func openPart(t *testing.T, cfg *config.Pipeline, tasks []int) (*Pipeline, context.Context) {
	t.Helper()
	persist := func(context.Context, checkpoint.Manifest, *pebble.DB) error { return nil }
	opts := quietOptions(t, Options{Cluster: &ClusterPart{Tasks: map[string][]int{"sum": tasks}, Persist: persist}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	p, err := Open(ctx, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p, ctx
}

// recordsOfTasks returns the records of recs whose keys the tasks of the
// pipeline's first operator own.
func recordsOfTasks(cfg *config.Pipeline, recs []sumRecord, tasks []int) []sumRecord {
	oc := cfg.Operators[0]
	var out []sumRecord
	for _, r := range recs {
		task := state.TaskForKeyGroup(state.KeyGroup([]byte(r.key), oc.MaxParallelism), oc.Parallelism, oc.MaxParallelism)
		if slices.Contains(tasks, task) {
			out = append(out, r)
		}
	}
	return out
}
