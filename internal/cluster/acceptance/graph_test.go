package acceptance

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/cluster/assign"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// graphKillsEnv sets the number of SIGKILLs of TestGraphWorkerKills (the
// issue's loop: 50).
const graphKillsEnv = "ACCEPTANCE_GRAPH_KILLS"

// TestGraphWorkerKills runs the three-stage dataflow graph
// (pipelineFile.graph: pre -> mid -> sum, the edges through exchange
// streams, the source routed: the worker running task 0 of pre reads it
// and publishes into pre's exchange) on 3 workers, each running its tasks
// of every stage, and
// SIGKILLs a random worker (the coordinator or not) while records are
// published, each kill followed by a new worker: kills land with records
// in every stage and in both exchange streams, and move tasks of every
// stage, and the router with pre's task 0. The survivors restore the
// killed worker's tasks of each stage from the last cluster checkpoint, which records the exchange positions
// with the source's; producers replay into the exchanges, whose duplicate
// windows drop what was stored before. In the end every output the
// one-stage model expects is stored exactly once at the sink and nothing
// else (checkGraphOutputs), each stage's exchange stream holds each of its
// records once (requireStages), the per-key sequence check passes at every
// stage, the control
// bucket's history keeps the protocol's invariants and the workers exit 0
// on SIGTERM. 2 kills by default (4 in the long mode); graphKillsEnv sets
// another number, and the records grow with it so that every kill falls
// while records are published.
func TestGraphWorkerKills(t *testing.T) {
	plan := killPlan{kills: 2, restart: true, sameID: -1}
	if longMode() {
		plan.kills = 4
	}
	count := graphRecords()
	if n := os.Getenv(graphKillsEnv); n != "" {
		kills, err := strconv.Atoi(n)
		if err != nil || kills < 1 {
			t.Fatalf("%s=%q: want a number of kills", graphKillsEnv, n)
		}
		plan.kills = kills
		count = max(count, kills*2_000)
	}
	d := deployGraph(t, true)
	r := newRand(t)
	events := newEvents(count, r)
	d.startWorkers(t, workers)
	t.Logf("plan: %s", plan)
	report := d.killLoop(t, r, events, plan)
	d.stopWorkers(t)
	what := "graph, after " + plan.String()
	t.Logf("ACCEPTANCE-SUMMARY %s: %s", what, summary(report))
	d.requireModelOutputs(t, what)
	d.requireStages(t, what)
	d.requireControl(t, what)
}

// graphRecords is how many records a graph test publishes: the short
// workload unless in the long mode (each graph record crosses three stages
// and two exchange streams).
func graphRecords() int {
	if longMode() {
		return records
	}
	return shortRecords
}

// deployGraph is deploy for the three-stage graph pipeline, its source
// routed when route, whose exchange streams `wasmstream deploy` creates
// before the workers start, as it creates every replicated asset (three
// workers creating them at once timed out in an early run: the first
// checkpoint was given up).
func deployGraph(t *testing.T, route bool) *deployment {
	t.Helper()
	d := deploy(t)
	d.graph, d.route = true, route
	path := filepath.Join(d.dir, "deploy.hcl")
	file := pipelineFile{urls: d.cluster.URLs(), dataDir: filepath.Join(d.dir, "deploy"), module: d.module, mode: d.mode, graph: true, route: route}
	if err := os.WriteFile(path, []byte(file.hcl()), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Parse([]byte(file.hcl()), path)
	if err != nil {
		t.Fatal(err)
	}
	out := d.runCLI(t, "deploy", path)
	for _, name := range engine.ExchangeStreams(cfg) {
		if !strings.Contains(out, name) {
			t.Fatalf("wasmstream deploy did not list exchange stream %s:\n%s", name, out)
		}
	}
	t.Logf("wasmstream deploy:\n%s", out)
	return d
}

// TestGraphRescalesTheMiddleStageLive rescales the middle stage of the
// three-stage graph on 3 running workers while records are published:
// `wasmstream scale --operator mid --parallelism 6`, then 3. Each change is
// live: a handover checkpoint under the old assignment, then only the tasks
// it moves restart (mid's, whose ranges change, and any task the balance
// moves to another worker), restored from it, while the others run on;
// requireUnmovedNotRestarted fails the test when a task the change left
// where it ran was started again. mid's consumers read its exchange stream
// with the markers of its new parallelism from the first checkpoint under
// the new assignment. In the end every output the model expects is stored
// exactly once, the per-key check and the control bucket's checks pass,
// and the assignment in force runs mid with 3 tasks.
func TestGraphRescalesTheMiddleStageLive(t *testing.T) {
	const stage = "mid"
	d := deployGraph(t, false)
	n := rescaleShortRecords
	events := newEvents(n, newRand(t))
	d.startWorkers(t, workers)
	steps := []int{6, 3}
	portion := func(i int) int { return n * i / (len(steps) + 1) }
	pub := d.publishPaced(events, portion(1))
	prev := d.awaitAssignment(t, 0, "runs mid with 2 tasks on 3 workers", func(a assign.Assignment) bool {
		return stageParallelism(a, stage) == graphStageTasks && len(workersOf(a)) == workers
	})
	file := filepath.Join(d.dir, "w0.hcl")
	var report []string
	for i, p := range steps {
		pub.waitSent(t, portion(i+1))
		at := time.Now()
		out := d.runCLI(t, "scale", file, "--operator", stage, "--parallelism", fmt.Sprint(p))
		a := d.awaitAssignment(t, prev.Epoch, fmt.Sprintf("runs mid with %d tasks", p), func(a assign.Assignment) bool {
			return stageParallelism(a, stage) == p
		})
		starts, note := d.awaitRestarts(t, prev.Epoch, a)
		name := fmt.Sprintf("scale mid to %d", p)
		d.requireUnmovedNotRestarted(t, name, prev, a)
		line := stepReport(name, at, a, starts, note, pub.sent.Load())
		t.Logf("%s (%s)", line, out)
		report = append(report, line)
		prev = a
		pub.release(portion(i + 2))
	}
	pub.release(n)
	pub.wait(t)
	d.waitOutputs(t, n)
	d.stopWorkers(t)
	what := "graph, mid scaled 2 -> 6 -> 3 live"
	final := d.finalAssignment(t)
	t.Logf("ACCEPTANCE-SUMMARY %s: %s; final assignment %d: %s", what, summary(report), final.Epoch, placementOf(final))
	d.requireModelOutputs(t, what)
	d.requireStages(t, what)
	d.requireControl(t, what)
	if p := stageParallelism(final, stage); p != 3 {
		t.Errorf("the final assignment %d runs %s with %d tasks, want 3: %s", final.Epoch, stage, p, placementOf(final))
	}
}

// routedWorkers is how many workers TestGraphRoutedSourceIsReadOnce runs:
// the figure.
const routedWorkers = 4

// TestGraphRoutedSourceIsReadOnce runs the three-stage graph on 4 workers,
// with its source routed and, side by side, without. Routed, only the
// worker running task 0 of pre runs the router, which reads the source
// stream and publishes into pre's exchange stream; no other part reads the
// source. Once the assignment runs on all 4 workers, the test publishes
// every record, waits for the outputs and stops the workers; each part
// logs how many records each of its sources read when it stops ("pipeline
// stopped", read_per_source). Routed, the source stream must have been read
// at most 1.1 times over all parts (its messages are read whole, so the
// ratio of records is that of bytes); without routing every part with a
// task of pre reads it, which is reported. Each part reads of an exchange
// stream only its key groups' subjects, so routed, every stream the
// pipeline reads is read at most 1.1 times over all parts. The outputs must
// equal the model's in both.
func TestGraphRoutedSourceIsReadOnce(t *testing.T) {
	for _, route := range []bool{true, false} {
		t.Run(fmt.Sprintf("routed %t", route), func(t *testing.T) { runRoutedSourceCase(t, route) })
	}
}

func runRoutedSourceCase(t *testing.T, route bool) {
	d := deployGraph(t, route)
	events := newEvents(graphRecords(), newRand(t))
	d.startWorkers(t, routedWorkers)
	a := d.awaitAssignment(t, 0, "runs on 4 workers", func(a assign.Assignment) bool { return len(workersOf(a)) == routedWorkers })
	d.awaitRestarts(t, 0, a)
	d.publish(t, events)
	d.waitOutputs(t, len(events))
	d.stopWorkers(t)
	what := fmt.Sprintf("graph, %d workers, routed source %t", routedWorkers, route)
	d.requireModelOutputs(t, what)
	reads := d.readsPerSource(t)
	ratio := float64(reads[sourceName]) / float64(len(events))
	t.Logf("ACCEPTANCE-SUMMARY %s: source %s read %d records for %d stored (%.3fx); all sources over every part: %v; assignment %d: %s",
		what, sourceName, reads[sourceName], len(events), ratio, reads, a.Epoch, placementOf(a.Assignment))
	if !route {
		return
	}
	for name, n := range reads {
		if r := float64(n) / float64(len(events)); r > 1.1 {
			t.Errorf("%s: %s was read %.3f times over all parts (%d records for %d), want at most 1.1", what, name, r, n, len(events))
		}
	}
}

// readsPerSource sums, over every part of every worker, the records each
// source read, from the parts' "pipeline stopped" lines.
func (d *deployment) readsPerSource(t *testing.T) map[string]uint64 {
	t.Helper()
	re := regexp.MustCompile(`read_per_source="?map\[([^\]]*)\]`)
	out := map[string]uint64{}
	for _, w := range d.workers {
		for _, l := range w.find("pipeline stopped") {
			m := re.FindStringSubmatch(l.raw)
			if m == nil {
				t.Fatalf("%s: a stop line without read_per_source: %s", w.id, l.raw)
			}
			for _, f := range strings.Fields(m[1]) {
				i := strings.LastIndex(f, ":")
				n, err := strconv.ParseUint(f[i+1:], 10, 64)
				if i < 0 || err != nil {
					t.Fatalf("%s: read_per_source entry %q: %v", w.id, f, err)
				}
				out[f[:i]] += n
			}
		}
	}
	return out
}
