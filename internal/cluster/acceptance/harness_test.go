package acceptance

import (
	"context"
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
// pipeline's streams and control bucket, the model of what was published,
// the recorders of the output stream and of the control bucket, and the
// workers (every process started, killed ones included).
type deployment struct {
	cluster *clustertest.Cluster
	js      jetstream.JetStream
	dir     string // the test's temporary directory: pipeline files, data dirs, logs
	cli     string
	module  string
	mode    string // the sink's mode ("": idempotent)
	graph   bool   // the pipeline is a three-stage graph (pipelineFile.graph)
	route   bool   // the source is routed (pipelineFile.route)
	model   *model
	rec     *recorder
	ctl     *controlRecorder
	workers []*worker
	nextID  int // the number of the next new worker id, w<nextID>
}

// deploy builds what the test runs, starts the cluster, creates the
// streams and the control bucket and starts the recorders, for an
// idempotent sink. When the test fails, the end of every worker's log is
// printed.
func deploy(t *testing.T) *deployment {
	t.Helper()
	return deployMode(t, "")
}

// deployMode is deploy with the sink in mode (config.ModeIdempotent or
// config.ModeTransactional).
func deployMode(t *testing.T, mode string) *deployment {
	t.Helper()
	d := &deployment{dir: t.TempDir(), model: newModel(), mode: mode} // first: removed after every process is gone
	d.cli = cliPath(t)
	d.module = testutil.GoGuest(t, "./internal/testguests/sum2")
	d.cluster = clustertest.Start(t, 3)
	d.cluster.WaitReady(t)
	d.js = d.cluster.JetStream(t)
	createStreams(t, d.js, mode)
	createStateStore(t, d.js)
	d.ctl = startControlRecorder(t, d.cluster)
	d.rec = startRecorder(t, d.cluster)
	t.Cleanup(func() {
		if t.Failed() {
			d.dumpLiveWorkers(t)
			for _, w := range d.workers {
				t.Log(w.logTail(logTailLines))
			}
		}
		d.keepLogs(t)
	})
	return d
}

// dumpLiveWorkers makes every worker still running print its goroutines
// into its log (SIGQUIT, which ends it): a test that failed waiting for
// the workers (an assignment, a scale, outputs) then shows what each one
// was waiting for, in the logs ACCEPTANCE_LOGS keeps.
func (d *deployment) dumpLiveWorkers(t *testing.T) {
	for _, w := range d.workers {
		if !w.exited() {
			w.dumpGoroutines()
			t.Logf("worker %s was still running: SIGQUIT, its goroutines are at the end of %s", w.id, w.logPath)
		}
	}
}

// logsEnv names a directory where every test copies its workers' logs
// (<dir>/<test>/<id>.log), kept after the test's temporary directory is
// removed.
const logsEnv = "ACCEPTANCE_LOGS"

func (d *deployment) keepLogs(t *testing.T) {
	root, ok := os.LookupEnv(logsEnv)
	if !ok || root == "" {
		return
	}
	dir := filepath.Join(root, strings.ReplaceAll(t.Name(), "/", "_"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Logf("%s: %v", logsEnv, err)
		return
	}
	for _, w := range d.workers {
		b, err := os.ReadFile(w.logPath)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, filepath.Base(w.logPath)), b, 0o644)
		}
		if err != nil {
			t.Logf("%s: %v", logsEnv, err)
		}
	}
	t.Logf("worker logs copied to %s", dir)
}

// startWorkers starts n workers with new ids (w0 .. w<n-1> in a new
// deployment) and fails unless all of them are still running after
// startupCheck.
func (d *deployment) startWorkers(t *testing.T, n int) {
	t.Helper()
	for range n {
		d.startNewWorker(t)
	}
	for deadline := time.Now().Add(startupCheck); time.Now().Before(deadline); time.Sleep(pollEvery / 2) {
		d.requireRunning(t)
	}
	t.Logf("%d workers running (pipeline files and logs in %s)", n, d.dir)
}

// startNewWorker starts a worker with an id no worker had before: it
// joins at once, as a replacement machine would.
func (d *deployment) startNewWorker(t *testing.T) *worker {
	t.Helper()
	id := fmt.Sprintf("w%d", d.nextID)
	d.nextID++
	return d.startWorker(t, id)
}

// startWorker starts worker id, each id with its own pipeline file and
// data dir. An id that ran before (a restart on the same machine) keeps
// its file and data dir; it waits for the membership lease of its earlier
// process to expire (up to lease_ttl) before it joins. Each process logs
// to a file of its own: <id>.log, then <id>.2.log, ...
func (d *deployment) startWorker(t *testing.T, id string) *worker {
	t.Helper()
	return d.startWorkerAt(t, id, d.cluster.URLs())
}

// startWorkerAt is startWorker with the server URLs urls in a new
// pipeline file (e.g. proxies in front of the nodes).
func (d *deployment) startWorkerAt(t *testing.T, id, urls string) *worker {
	t.Helper()
	path := filepath.Join(d.dir, id+".hcl")
	if _, err := os.Stat(path); err != nil {
		file := pipelineFile{urls: urls, dataDir: filepath.Join(d.dir, id), module: d.module, mode: d.mode, graph: d.graph, route: d.route}
		if err := os.WriteFile(path, []byte(file.hcl()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := 1
	for _, w := range d.workers {
		if w.id == id {
			run++
		}
	}
	logPath := filepath.Join(d.dir, id+".log")
	if run > 1 {
		logPath = filepath.Join(d.dir, fmt.Sprintf("%s.%d.log", id, run))
	}
	w := startWorker(t, d.cli, path, id, logPath)
	d.workers = append(d.workers, w)
	return w
}

// live lists the workers that run and that the test did not freeze.
func (d *deployment) live() []*worker {
	var out []*worker
	for _, w := range d.workers {
		if !w.down && !w.frozen && !w.exited() {
			out = append(out, w)
		}
	}
	return out
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
		if !w.down && w.terminate(t) {
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
// stopped, so that nothing a stop flushed escapes the check. It returns
// what the stream holds, for further checks.
func (d *deployment) requireModelOutputs(t *testing.T, what string) []storedMsg {
	t.Helper()
	return d.requireOutputs(t, what, false)
}

// requireOutputs is requireModelOutputs; allowInversions accepts outputs
// of a key stored out of order (a frozen zombie's queued publishes landing
// late, design §5.3), which are reported.
func (d *deployment) requireOutputs(t *testing.T, what string, allowInversions bool) []storedMsg {
	t.Helper()
	msgs := d.rec.complete(t)
	check := checkOutputs
	if d.graph {
		check = checkGraphOutputs
	}
	outputs, decoded := check(msgs, d.model)
	perKey := checkPerKey(decoded, d.model.perKey)
	t.Logf("ACCEPTANCE-SUMMARY %s: sink %s, records=%d outputs: %s; per key: %s; %s",
		what, orIdempotent(d.mode), len(d.model.byID), outputs, perKey, d.rec.progress())
	outputs.require(t, what)
	perKey.require(t, what, allowInversions)
	return msgs
}

// ctxFor is a context that ends after limit, or with the test.
func ctxFor(t *testing.T, limit time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	t.Cleanup(cancel)
	return ctx
}
