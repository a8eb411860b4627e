package acceptance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/cluster/lease"
	clusterworker "github.com/wasmstream/wasmstream/internal/cluster/worker"
	"github.com/wasmstream/wasmstream/internal/clustertest"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// benchCluster is the setup BenchmarkClusterThroughput's rounds share: one
// 3-node cluster, the CLI and the operator. Each round gets the pipeline's
// assets afresh (resetAssets) and workers of its own.
type benchCluster struct {
	cluster *clustertest.Cluster
	js      jetstream.JetStream
	dir     string
	cli     string
	module  string
}

func newBenchCluster(b *testing.B) *benchCluster {
	b.Helper()
	c := &benchCluster{dir: b.TempDir()} // first: removed after every process is gone
	c.cli = cliPath(b)
	c.module = testutil.GoGuest(b, "./internal/testguests/sum2")
	c.cluster = clustertest.Start(b, 3)
	c.cluster.WaitReady(b)
	c.js = c.cluster.JetStream(b)
	return c
}

// benchTasks is the operator's parallelism in the benchmark: 6 tasks
// spread evenly over 1 and over 3 workers (the tests' 4 would give one of
// 3 workers half of the records).
const benchTasks = 6

// benchLog prints a line of the benchmark as it runs: a benchmark's own
// log (b.Log) keeps only its first 10 lines.
func benchLog(format string, args ...any) {
	fmt.Printf("cluster-bench: "+format+"\n", args...)
}

// keepBenchLogs copies the round's worker logs to
// $ACCEPTANCE_LOGS/<benchmark>/round<N>/, as the tests keep theirs.
func keepBenchLogs(b *testing.B, dir string, round int) {
	root, ok := os.LookupEnv(logsEnv)
	if !ok || root == "" {
		return
	}
	dst := filepath.Join(root, strings.ReplaceAll(b.Name(), "/", "_"), fmt.Sprintf("round%d", round))
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	err := os.MkdirAll(dst, 0o755)
	for _, l := range logs {
		var data []byte
		if err == nil {
			data, err = os.ReadFile(l)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(dst, filepath.Base(l)), data, 0o644)
		}
	}
	if err != nil {
		b.Logf("%s: %v", logsEnv, err)
	}
}

// benchRound is what one round measured.
type benchRound struct {
	round, workers, records int
	// elapsed runs from the start of the first worker to the stream time
	// stamp of the last output. afterFirst and afterLast run from the
	// first and the last "tasks started" line to the same: the last is
	// when every worker runs its tasks, but the others process records
	// before it.
	elapsed, afterFirst, afterLast time.Duration
	starts                         int // "tasks started" lines: more than workers means a reassignment
	perWorker                      []benchWorker
	// natsCPU is the three nodes' CPU time from the first "tasks started"
	// line to the last output.
	natsCPU time.Duration
	outputs outputReport
}

// benchWorker is one worker's share of a round.
type benchWorker struct {
	id    string
	stats partStats     // summed over its "pipeline stopped" lines
	cpu   time.Duration // user + system time of the process, all its life
	// running is its CPU time from its first "tasks started" line to the
	// last output: reading and processing, without the startup (the
	// operator's compilation, about 2 s of CPU).
	running time.Duration
}

func (r benchRound) rate() float64 { return float64(r.records) / r.elapsed.Seconds() }

func (r benchRound) rateAfterFirst() float64 { return float64(r.records) / r.afterFirst.Seconds() }

func (r benchRound) rateAfterLast() float64 { return float64(r.records) / r.afterLast.Seconds() }

// reads is the sum of the workers' records read.
func (r benchRound) reads() uint64 {
	var n uint64
	for _, w := range r.perWorker {
		n += w.stats.read
	}
	return n
}

// amplification is the records read per record published.
func (r benchRound) amplification() float64 { return float64(r.reads()) / float64(r.records) }

// workerCPU and runningCPU are the workers' CPU times together.
func (r benchRound) workerCPU() time.Duration {
	var d time.Duration
	for _, w := range r.perWorker {
		d += w.cpu
	}
	return d
}

func (r benchRound) runningCPU() time.Duration {
	var d time.Duration
	for _, w := range r.perWorker {
		d += w.running
	}
	return d
}

func (r benchRound) String() string {
	var each []string
	for _, w := range r.perWorker {
		each = append(each, fmt.Sprintf("%s read %d processed %d cpu %s (%s running)", w.id, w.stats.read, w.stats.processed,
			w.cpu.Round(10*time.Millisecond), w.running.Round(10*time.Millisecond)))
	}
	return fmt.Sprintf("round %d: %d worker(s), %d records in %s = %.0f records/s from the workers' start; "+
		"from the first tasks started %s = %.0f records/s, from the last %s = %.0f records/s (%d tasks-started lines); "+
		"reads %d = %.2f x records (%s); workers' cpu %s (%s running), nats cpu while running %s; outputs: %s",
		r.round, r.workers, r.records, r.elapsed.Round(time.Millisecond), r.rate(),
		r.afterFirst.Round(time.Millisecond), r.rateAfterFirst(), r.afterLast.Round(time.Millisecond), r.rateAfterLast(), r.starts,
		r.reads(), r.amplification(), strings.Join(each, "; "),
		r.workerCPU().Round(10*time.Millisecond), r.runningCPU().Round(10*time.Millisecond), r.natsCPU.Round(10*time.Millisecond), r.outputs)
}

// round runs one round: fresh assets, events published before any
// worker starts, then n workers until every output is stored.
func (c *benchCluster) round(b *testing.B, round, n int, events []event) benchRound {
	b.Helper()
	c.resetAssets(b)
	m := newModel()
	publishStart := time.Now()
	for from := 0; from < len(events); from += publishChunk {
		publishEvents(b, c.js, m, events[from:min(from+publishChunk, len(events))])
	}
	benchLog("round %d: published %d records in %s", round, len(events), time.Since(publishStart).Round(time.Millisecond))
	rec := startRecorder(b, c.cluster)
	defer rec.stop()
	dir := filepath.Join(c.dir, fmt.Sprintf("round%d", round))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	ws := c.startBenchWorkers(b, dir, n)
	defer keepBenchLogs(b, dir, round)
	var pids []int
	for _, w := range ws {
		pids = append(pids, w.cmd.Process.Pid)
	}
	for i := range c.cluster.N() {
		pids = append(pids, c.cluster.PID(i))
	}
	cpu := startCPUSampler(pids)
	awaitAllOutputs(b, rec, ws, len(events))
	cpu.close()
	last := lastStamp(rec.snapshot())
	stopAll(b, ws)
	r := benchRound{round: round, workers: n, records: len(events), elapsed: last.Sub(start)}
	r.outputs, _ = checkOutputs(rec.snapshot(), m)
	if !r.outputs.ok() {
		b.Errorf("round %d: outputs: %s\n%s", round, r.outputs, indent(r.outputs.examples))
	}
	var firstStart, lastStart time.Time
	for i, w := range ws {
		bw := benchWorker{id: w.id, cpu: w.cmd.ProcessState.UserTime() + w.cmd.ProcessState.SystemTime()}
		starts := w.taskStarts(b)
		if len(starts) == 0 {
			b.Fatalf("round %d: worker %s logged no %q line; log %s", round, w.id, logTasksStarted, w.logPath)
		}
		r.starts += len(starts)
		bw.running = cpu.between(i, starts[0].at, last)
		for _, s := range starts {
			if firstStart.IsZero() || s.at.Before(firstStart) {
				firstStart = s.at
			}
			lastStart = maxTime(lastStart, s.at)
		}
		parts, err := w.stoppedParts()
		if err != nil {
			b.Fatal(err)
		}
		bw.stats = total(parts)
		r.perWorker = append(r.perWorker, bw)
	}
	r.afterFirst, r.afterLast = last.Sub(firstStart), last.Sub(lastStart)
	for i := range c.cluster.N() {
		r.natsCPU += cpu.between(len(ws)+i, firstStart, last)
	}
	return r
}

// startBenchWorkers starts n workers w0.. with files and data dirs in dir.
func (c *benchCluster) startBenchWorkers(b *testing.B, dir string, n int) []*worker {
	b.Helper()
	ws := make([]*worker, n)
	for i := range ws {
		id := fmt.Sprintf("w%d", i)
		path := filepath.Join(dir, id+".hcl")
		file := pipelineFile{urls: c.cluster.URLs(), dataDir: filepath.Join(dir, id), module: c.module, tasks: benchTasks}
		if err := os.WriteFile(path, []byte(file.hcl()), 0o644); err != nil {
			b.Fatal(err)
		}
		ws[i] = startWorker(b, c.cli, path, id, filepath.Join(dir, id+".log"))
	}
	return ws
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// resetAssets deletes the streams, the control bucket and the state
// Object Store of the previous round, if any, and creates them again, as
// the tests do: the round starts from stream sequence 1 with no
// checkpoint.
func (c *benchCluster) resetAssets(b *testing.B) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	bucket := clusterworker.BucketName(pipelineName)
	for _, s := range []string{inputStream, outputStream, "KV_" + bucket, "OBJ_" + clusterworker.ObjectStoreName(pipelineName)} {
		if err := c.js.DeleteStream(ctx, s); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
			b.Fatalf("delete stream %s: %v", s, err)
		}
	}
	createStreams(b, c.js, "")
	createStateStore(b, c.js)
	if _, err := lease.EnsureBucket(ctx, c.js, bucket, replicas); err != nil {
		b.Fatalf("create the control bucket: %v", err)
	}
}

// awaitAllOutputs waits until the recorder saw want distinct outputs,
// failing as waitOutputs does: a worker ended, no new output for
// stallLimit, or not all after outputLimit.
func awaitAllOutputs(b *testing.B, rec *recorder, ws []*worker, want int) {
	b.Helper()
	start := time.Now()
	last, lastChange := -1, start
	for {
		p := rec.progress()
		if p.distinct >= want {
			return
		}
		for _, w := range ws {
			if w.unexpectedExit() {
				b.Fatal(w.exitFailure())
			}
		}
		now := time.Now()
		if p.distinct != last {
			last, lastChange = p.distinct, now
		}
		if now.Sub(lastChange) > stallLimit || now.Sub(start) > outputLimit {
			b.Fatalf("not %d outputs after %s (%s without a new one): %s", want, now.Sub(start).Round(time.Second),
				now.Sub(lastChange).Round(time.Second), p)
		}
		time.Sleep(pollEvery / 5)
	}
}

// lastStamp is the latest stream time stamp of msgs.
func lastStamp(msgs []storedMsg) time.Time {
	var last time.Time
	for _, m := range msgs {
		last = maxTime(last, m.stamp)
	}
	return last
}

// stopAll SIGTERMs every worker at once and fails unless each exits 0
// within stopLimit.
func stopAll(b *testing.B, ws []*worker) {
	b.Helper()
	for _, w := range ws {
		w.down = true
		if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			b.Fatalf("SIGTERM worker %s: %v", w.id, err)
		}
	}
	deadline := time.Now().Add(stopLimit)
	for _, w := range ws {
		if msg := w.awaitExit0(deadline, stopLimit); msg != "" {
			b.Error(msg)
		}
	}
}
