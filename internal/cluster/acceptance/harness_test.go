package acceptance

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/clustertest"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// Wait bounds. They are no performance claims: a wait that reaches one
// means the behaviour under test broke (a 2-core machine runs three nodes
// and three workers at once).
const (
	// startupCheck is how long a started worker must keep running before
	// the test publishes: a worker that cannot start fails the test here,
	// seconds in, naming its log.
	startupCheck = 2 * time.Second
	// outputLimit bounds the whole wait for the outputs, stallLimit the
	// time without a new one while some are still due.
	outputLimit = 5 * time.Minute
	stallLimit  = 90 * time.Second
	// stopLimit is how long a worker may take to exit after SIGTERM.
	stopLimit     = 30 * time.Second
	pollEvery     = 100 * time.Millisecond
	progressEvery = 5 * time.Second
	// logTailLines of each worker's log are printed when a test fails.
	logTailLines = 60
)

// workers is how many worker processes share the pipeline.
const workers = 3

// deployment is one acceptance setup: a 3-node cluster with the
// pipeline's streams, the model of what was published, the recorder of
// the output stream and the workers.
type deployment struct {
	cluster *clustertest.Cluster
	js      jetstream.JetStream
	dir     string // the test's temporary directory: pipeline files, data dirs, logs
	cli     string
	module  string
	model   *model
	rec     *recorder
	workers []*worker
}

// deploy builds what the test runs, starts the cluster, creates the
// streams and starts the recorder. When the test fails, the end of every
// worker's log is printed.
func deploy(t *testing.T) *deployment {
	t.Helper()
	d := &deployment{dir: t.TempDir(), model: newModel()} // first: removed after every process is gone
	d.cli = cliPath(t)
	d.module = testutil.GoGuest(t, "./internal/testguests/sum2")
	d.cluster = clustertest.Start(t, 3)
	d.cluster.WaitReady(t)
	d.js = d.cluster.JetStream(t)
	createStreams(t, d.js)
	d.rec = startRecorder(t, d.cluster)
	t.Cleanup(func() {
		if t.Failed() {
			for _, w := range d.workers {
				t.Log(w.logTail(logTailLines))
			}
		}
	})
	return d
}

// startWorkers starts n workers, w0 .. w<n-1>, each with its own pipeline
// file and data dir, and fails unless all of them are still running after
// startupCheck.
func (d *deployment) startWorkers(t *testing.T, n int) {
	t.Helper()
	for i := range n {
		id := fmt.Sprintf("w%d", i)
		file := pipelineFile{urls: d.cluster.URLs(), dataDir: filepath.Join(d.dir, id), module: d.module}
		path := filepath.Join(d.dir, id+".hcl")
		if err := os.WriteFile(path, []byte(file.hcl()), 0o644); err != nil {
			t.Fatal(err)
		}
		d.workers = append(d.workers, startWorker(t, d.cli, path, id, filepath.Join(d.dir, id+".log")))
	}
	for deadline := time.Now().Add(startupCheck); time.Now().Before(deadline); time.Sleep(pollEvery / 2) {
		d.requireRunning(t)
	}
	t.Logf("%d workers running (pipeline files and logs in %s)", n, d.dir)
}

// requireRunning fails the test when a worker ended that the test did not
// kill or stop.
func (d *deployment) requireRunning(t *testing.T) {
	t.Helper()
	for _, w := range d.workers {
		if w.unexpectedExit() {
			t.Fatal(w.exitFailure())
		}
	}
}

// publish stores events in chunks, checking between chunks that the
// workers still run.
func (d *deployment) publish(t *testing.T, events []event) {
	t.Helper()
	start := time.Now()
	for from := 0; from < len(events); from += publishChunk {
		publishEvents(t, d.js, d.model, events[from:min(from+publishChunk, len(events))])
		d.requireRunning(t)
	}
	t.Logf("published %d records in %s (stream sequence %d)", len(events), time.Since(start).Round(time.Millisecond), d.model.lastSeq)
}

// waitOutputs waits until the output stream holds want distinct outputs
// and returns how long that took. It logs progress, and fails when a
// worker ends, when no new output arrives for stallLimit, or after
// outputLimit.
func (d *deployment) waitOutputs(t *testing.T, want int) time.Duration {
	t.Helper()
	start := time.Now()
	last, lastChange, nextLog := -1, start, start.Add(progressEvery)
	for {
		p := d.rec.progress()
		if p.distinct >= want {
			t.Logf("%d outputs after %s: %s", want, time.Since(start).Round(time.Millisecond), p)
			return time.Since(start)
		}
		d.requireRunning(t)
		now := time.Now()
		if p.distinct != last {
			last, lastChange = p.distinct, now
		}
		switch {
		case now.Sub(lastChange) > stallLimit:
			t.Fatalf("no new output for %s; want %d: %s; running: %s", stallLimit, want, p, d.running())
		case now.Sub(start) > outputLimit:
			t.Fatalf("not %d outputs after %s: %s; running: %s", want, outputLimit, p, d.running())
		case now.After(nextLog):
			t.Logf("waiting for %d outputs, %s in: %s; running: %s", want, now.Sub(start).Round(time.Second), p, d.running())
			nextLog = now.Add(progressEvery)
		}
		time.Sleep(pollEvery)
	}
}

// running lists the workers that run.
func (d *deployment) running() string {
	var ids []string
	for _, w := range d.workers {
		if !w.exited() {
			ids = append(ids, w.id)
		}
	}
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, " ")
}

// stopWorkers sends SIGTERM to every running worker at once (one by one,
// each stop would hand its ranges to the others) and fails unless each
// exits 0 within stopLimit.
func (d *deployment) stopWorkers(t *testing.T) {
	t.Helper()
	d.requireRunning(t)
	var stopping []*worker
	for _, w := range d.workers {
		if !w.down {
			w.terminate(t)
			stopping = append(stopping, w)
		}
	}
	start := time.Now()
	deadline := start.Add(stopLimit)
	for _, w := range stopping {
		if msg := w.awaitExit0(deadline, stopLimit); msg != "" {
			t.Error(msg)
		}
	}
	t.Logf("%d workers stopped by SIGTERM in %s", len(stopping), time.Since(start).Round(time.Millisecond))
}

// requireModelOutputs checks the output stream against the model: every
// expected output stored exactly once, with the model's payload, nothing
// else, and the per-key sequence check. Call it after the workers
// stopped, so that nothing a stop flushed escapes the check.
func (d *deployment) requireModelOutputs(t *testing.T, what string) {
	t.Helper()
	msgs := d.rec.complete(t)
	outputs, decoded := checkOutputs(msgs, d.model)
	perKey := checkPerKey(decoded, d.model.perKey)
	t.Logf("ACCEPTANCE-SUMMARY %s: records=%d outputs: %s; per key: %s; %s",
		what, len(d.model.byID), outputs, perKey, d.rec.progress())
	outputs.require(t, what)
	perKey.require(t, what)
}
