package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/faultfs"
)

var checkpointDiskFaults = []struct {
	name  string
	match func(errorfs.Op) bool
	err   error
	says  string // in the trigger's error
}{
	{"manifest write, disk full", func(op errorfs.Op) bool { return op.Kind == errorfs.OpFileWrite && checkpoint.IsManifestTemp(op.Path) },
		syscall.ENOSPC, "MANIFEST.json: write: "},
	{"manifest fsync", func(op errorfs.Op) bool { return op.Kind == errorfs.OpFileSync && checkpoint.IsManifestTemp(op.Path) },
		syscall.EIO, "MANIFEST.json: fsync: "},
	{"pebble checkpoint, disk full", func(op errorfs.Op) bool {
		return op.Kind == errorfs.OpCreate && checkpoint.InProgress(op.Path) && !checkpoint.IsManifestTemp(op.Path)
	}, syscall.ENOSPC, "pebble checkpoint: "},
	{"pebble checkpoint fsync", func(op errorfs.Op) bool {
		return op.Kind == errorfs.OpFileSync && checkpoint.InProgress(op.Path) && !checkpoint.IsManifestTemp(op.Path)
	}, syscall.EIO, "pebble checkpoint: "},
}

// A full disk or a failing fsync at the manifest write or at the Pebble
// checkpoint fails that checkpoint with an error naming it, the step and
// the cause; nothing half-written is listed; the pipeline goes on and the
// next checkpoint succeeds; a restart restores exactly.
func TestCheckpointDiskFaults(t *testing.T) {
	skipInRacePass(t)
	for _, tt := range checkpointDiskFaults {
		t.Run(tt.name, func(t *testing.T) {
			s := newSumSetup(t, 2)
			cfg := s.load(t)
			batch1, batch2 := sumRecords(40, 8, 1), sumRecords(30, 8, 2)
			faults := &faultfs.Injector{Match: tt.match, Err: tt.err}
			r := startFaultyRun(t, cfg, faults)

			r.feed(t, batch1)
			if res := r.trigger(t); res.Error != "" || res.ID != 1 {
				t.Fatalf("first checkpoint: %+v", res)
			}
			r.feed(t, batch2)
			faults.Arm(true)
			res := r.trigger(t)
			faults.Arm(false)
			if faults.Hits() == 0 {
				t.Fatal("the fault was never injected")
			}
			for _, want := range []string{"checkpoint 2 failed", "checkpoint 2 (" + checkpoint.Dir(CheckpointRoot(cfg), 2) + ")", tt.says, tt.err.Error()} {
				if !strings.Contains(res.Error, want) {
					t.Fatalf("the failed checkpoint answered %q, want it to say %q", res.Error, want)
				}
			}
			onlyCheckpoints(t, cfg, 1)

			if res := r.trigger(t); res.Error != "" || res.ID != 3 {
				t.Fatalf("the checkpoint after the fault: %+v", res)
			}
			onlyCheckpoints(t, cfg, 3, 1)
			if err := r.stop(); err != nil {
				t.Fatalf("the run after a failed checkpoint: %v", err)
			}
			restoresCleanly(t, cfg, Options{}, 4, expectedSums(batch1, batch2))
		})
	}
}

// Three failed checkpoints in a row stop the pipeline with an error that
// names the last one and the fix; nothing is lost: the restart restores the
// last completed checkpoint and replays the rest.
func TestCheckpointFailuresInARowStop(t *testing.T) {
	skipInRacePass(t)
	s := newSumSetup(t, 2)
	cfg := s.load(t)
	batch1, batch2 := sumRecords(40, 8, 3), sumRecords(30, 8, 4)
	faults := &faultfs.Injector{Match: checkpointDiskFaults[0].match, Err: syscall.ENOSPC}
	r := startFaultyRun(t, cfg, faults)
	r.feed(t, batch1)
	if res := r.trigger(t); res.Error != "" {
		t.Fatalf("first checkpoint: %+v", res)
	}
	r.feed(t, batch2)
	faults.Arm(true)
	for id := uint64(2); id <= 3; id++ {
		if res := r.trigger(t); !strings.Contains(res.Error, "no space left on device") {
			t.Fatalf("checkpoint %d: %+v, want a failure", id, res)
		}
	}
	r.trigger(t) // the third failure stops the pipeline
	err := r.wait()
	for _, want := range []string{"3 checkpoints in a row failed, the last (4)", "no space left on device", "restart: the run resumes from the last completed checkpoint"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("run ended with %v, want it to say %q", err, want)
		}
	}
	onlyCheckpoints(t, cfg, 1)

	stats := runSums(t, cfg, Options{}, nil)
	if stats.Processed != uint64(len(batch2)) {
		t.Errorf("the restart processed %d records, want the %d after checkpoint 1", stats.Processed, len(batch2))
	}
	checkSums(t, cfg, newestCheckpoint(t, cfg).ID, expectedSums(batch1, batch2))
}

// faultyRun is a pipeline running on an error-injecting filesystem.
type faultyRun struct {
	p      *Pipeline
	cancel context.CancelFunc
	done   chan error
}

func startFaultyRun(t *testing.T, cfg *config.Pipeline, faults *faultfs.Injector) *faultyRun {
	t.Helper()
	opts := quietOptions(t, Options{FS: faults.Wrap(vfs.Default)})
	opts.StopWhenIdle = 0
	ctx, cancel := context.WithCancel(context.Background())
	p, err := Open(ctx, cfg, opts)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	r := &faultyRun{p: p, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- p.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-p.stopped
		p.Close()
	})
	return r
}

// feed publishes recs and waits until the pipeline processed them.
func (r *faultyRun) feed(t *testing.T, recs []sumRecord) {
	t.Helper()
	want := r.p.Stats().Processed + uint64(len(recs))
	publishSums(t, r.p.Reach(), recs)
	deadline := time.Now().Add(time.Minute)
	for r.p.Stats().Processed < want {
		if time.Now().After(deadline) {
			t.Fatalf("processed %d of %d records after a minute", r.p.Stats().Processed, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (r *faultyRun) trigger(t *testing.T) TriggerResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := r.p.Trigger(ctx)
	if err != nil && !strings.Contains(err.Error(), "stopped") {
		t.Fatal(err)
	}
	return res
}

// stop ends the run with its final checkpoint.
func (r *faultyRun) stop() error {
	r.cancel()
	return r.wait()
}

// wait returns the run's error and releases the pipeline (its data dir).
func (r *faultyRun) wait() error {
	select {
	case err := <-r.done:
		r.p.Close()
		return err
	case <-time.After(time.Minute):
		return context.DeadlineExceeded
	}
}

// onlyCheckpoints checks that the pipeline lists exactly ids (newest
// first) and that its checkpoint root holds nothing else.
func onlyCheckpoints(t *testing.T, cfg *config.Pipeline, ids ...uint64) {
	t.Helper()
	root := CheckpointRoot(cfg)
	listed, err := checkpoint.List(root)
	if err != nil || !slices.Equal(listed, ids) {
		t.Fatalf("checkpoints %v, %v; want %v", listed, err, ids)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var names, want []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for _, id := range ids {
		want = append(want, filepath.Base(checkpoint.Dir(root, id)))
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("%s holds %v, want only %v", root, names, want)
	}
}
