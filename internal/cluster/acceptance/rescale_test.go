package acceptance

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/cluster/assign"
	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
)

// Workload of TestRescaleWhilePublishing: twice the other tests', so that
// the records outlast four changes of the workers.
const (
	rescaleRecords      = 200_000
	rescaleShortRecords = 40_000
)

// rescaleStep is one change TestRescaleWhilePublishing makes to the
// running pipeline.
type rescaleStep struct {
	name string
	// do makes the change and returns what it printed or chose.
	do func(t *testing.T, prev assign.Assignment) string
	// carried reports whether an assignment carries the change out.
	carried func(a assign.Assignment) bool
	// what describes carried, for a failure message.
	what string
}

// TestRescaleWhilePublishing changes the parallelism and the workers of
// the pipeline while records are being published, with an idempotent
// sink: 2 workers start (the operator at its file's parallelism, 4);
// then `wasmstream scale --parallelism 8`, a 3rd worker joins,
// `wasmstream scale --parallelism 2`, and two workers with tasks are
// stopped by SIGTERM one after the other (each leaves: it hands its tasks
// over to the others and exits), so one worker runs both tasks at the
// end. Each change falls while
// records are being published (publishPaced: they trickle in while the
// change plays out) and the next waits until the workers whose ranges it
// changed started their new tasks. In the end every output is stored
// exactly once (lost 0, duplicates 0), the per-key check and the control
// bucket's checks pass, the assignment in force runs the operator with 2
// tasks, and every worker exits 0 on SIGTERM.
//
// A task that a change leaves on its worker at its parallelism must not
// be started again by that worker (requireUnmovedNotRestarted): only
// moved tasks pause. Beyond that it reports, not asserts (times on a
// shared machine are no claims): per change, when the assignment was
// written and when each worker whose ranges changed logged "tasks
// started" (or "tasks released") with its startup, and the time from the
// change (the scale command, the start or the SIGTERM) to the last of
// them; from the output stream, the output gap of the restarted and of
// the unmoved key groups (outputgap_test.go), which also shows a
// restarted task that runs but does not read; and the snapshot pauses of
// the unmoved tasks in the checkpoints around each change.
func TestRescaleWhilePublishing(t *testing.T) {
	d := deploy(t)
	r := newRand(t)
	n := rescaleRecords
	if testing.Short() {
		n = rescaleShortRecords
	}
	events := newEvents(n, r)
	start := time.Now()
	d.startWorkers(t, 2)
	steps := rescaleSteps(d, r)
	portion := func(i int) int { return n * i / (len(steps) + 1) } // records published by step i
	pub := d.publishPaced(events, portion(1))
	first := d.awaitAssignment(t, 0, "runs 4 tasks on 2 workers", func(a assign.Assignment) bool {
		return parallelismOf(a) == parallelism && len(workersOf(a)) == 2
	})
	starts, note := d.awaitRestarts(t, 0, first)
	report := []string{stepReport("start 2 workers", start, first, starts, note, 0)}
	t.Log(report[0])
	var changes []change
	for i, s := range steps {
		pub.waitSent(t, portion(i+1))
		line, c := d.runStep(t, pub, s)
		report, changes = append(report, line), append(changes, c)
		t.Log(line)
		pub.release(portion(i + 2))
	}
	pub.release(n)
	pub.wait(t)
	d.waitOutputs(t, n)
	d.stopWorkers(t)

	what := "rescale while publishing"
	final := d.finalAssignment(t)
	t.Logf("ACCEPTANCE-SUMMARY %s: %s; final assignment %d: %s; %s", what, summary(report), final.Epoch, placementOf(final), d.restartSummary(t))
	msgs := d.requireModelOutputs(t, what)
	d.requireControl(t, what)
	t.Logf("ACCEPTANCE-SUMMARY %s: outputs of the restarted key groups around each change: %s", what, gapReport(t, msgs, changes))
	t.Logf("ACCEPTANCE-SUMMARY %s: output latency around each change: %s", what, d.latencyReport(t, msgs, changes))
	t.Logf("ACCEPTANCE-SUMMARY %s: unmoved key groups (never restarted: checked) around each change: %s", what, d.unmovedReport(t, changes))
	if p := parallelismOf(final); p != 2 {
		t.Errorf("the final assignment %d runs operator %s with %d tasks, want 2: %s", final.Epoch, operatorName, p, placementOf(final))
	}
}

// change is one change made, for the output gaps: when, and which key
// groups it restarted.
type change struct {
	name        string
	at, started time.Time // its start, its last "tasks started" line
	groups      []assign.Range
	unmoved     []assign.Range // key groups of the tasks the change left running
	// stopped is when the first worker stopped processing tasks the change
	// moved (a "tasks released" or "stopping a part" line of its
	// assignment); zero when no line says so (a leaving worker's).
	stopped time.Time
}

// gapReport describes the output gaps around each change.
func gapReport(t *testing.T, msgs []storedMsg, changes []change) string {
	t.Helper()
	times := outputTimes(msgs)
	var lines []string
	for _, c := range changes {
		g, err := outputGaps(times, c.groups, c.at, c.started)
		if err != nil {
			t.Fatal(err)
		}
		line := c.name + ": restarted key groups' " + g
		if len(c.unmoved) > 0 {
			u, err := outputGaps(times, c.unmoved, c.at, c.started)
			if err != nil {
				t.Fatal(err)
			}
			line += "; unmoved key groups' " + u
		}
		lines = append(lines, line)
	}
	return summary(lines)
}

// unmovedReport describes, per change that left tasks where they ran, the
// snapshot pauses of their key groups in the checkpoints around it.
func (d *deployment) unmovedReport(t *testing.T, changes []change) string {
	t.Helper()
	cs := d.completions(t)
	var lines []string
	for _, c := range changes {
		if len(c.unmoved) > 0 {
			lines = append(lines, c.name+": "+unmovedPauses(cs, c, 5*time.Second))
		}
	}
	return summary(lines)
}

// rescaleSteps are the changes of TestRescaleWhilePublishing, in order.
func rescaleSteps(d *deployment, r *rand.Rand) []rescaleStep {
	scaleTo := func(p int) rescaleStep {
		return rescaleStep{
			name:    fmt.Sprintf("scale to %d", p),
			do:      func(t *testing.T, _ assign.Assignment) string { return d.scale(t, p) },
			carried: func(a assign.Assignment) bool { return parallelismOf(a) == p },
			what:    fmt.Sprintf("runs %d tasks", p),
		}
	}
	var joined string
	return []rescaleStep{
		scaleTo(8),
		{
			name: "a 3rd worker joins",
			do: func(t *testing.T, _ assign.Assignment) string {
				joined = d.startNewWorker(t).id
				return "started " + joined
			},
			carried: func(a assign.Assignment) bool { return slices.Contains(workersOf(a), joined) },
			what:    "gives the new worker tasks",
		},
		scaleTo(2),
		leave(d, r, "SIGTERM of a worker with tasks"),
		leave(d, r, "SIGTERM of a 2nd worker with tasks: one is left"),
	}
}

// leave is a step that stops one of the workers with tasks by SIGTERM: it
// hands its tasks over and exits 0 (worker.leave).
func leave(d *deployment, r *rand.Rand, name string) rescaleStep {
	var left string
	return rescaleStep{
		name: name,
		do: func(t *testing.T, prev assign.Assignment) string {
			ids := workersOf(prev)
			left = ids[r.IntN(len(ids))]
			return d.terminateWorker(t, left)
		},
		carried: func(a assign.Assignment) bool { return !slices.Contains(workersOf(a), left) },
		what:    "gives the stopped worker no task",
	}
}

// runStep makes one change and waits until the workers it concerns
// started their new tasks; it returns the change's report line.
func (d *deployment) runStep(t *testing.T, pub *pacedPublish, s rescaleStep) (string, change) {
	t.Helper()
	prev := d.newestAssignment(t)
	sentBefore := pub.sent.Load()
	start := time.Now()
	said := s.do(t, prev.Assignment)
	a := d.awaitAssignment(t, prev.Epoch, s.what, s.carried)
	starts, note := d.awaitRestarts(t, prev.Epoch, a)
	line := stepReport(s.name, start, a, starts, note, pub.sent.Load()-sentBefore)
	c := change{name: s.name, at: start, started: start, groups: restartedGroups(t, a.Assignment, starts),
		unmoved: unmovedGroups(prev.Assignment, a.Assignment), stopped: d.firstStop(t, a.Epoch)}
	if len(starts) > 0 {
		c.started = starts[len(starts)-1].at
	}
	d.requireUnmovedNotRestarted(t, s.name, prev, a)
	return fmt.Sprintf("%s [%s]", line, said), c
}

// stepReport describes one change: its assignment, the workers' restarts
// and the pause from the change to the last restart.
func stepReport(name string, start time.Time, a seenAssignment, starts []taskStart, note string, published int64) string {
	from := start.Truncate(time.Millisecond) // the log stamps' precision
	var b strings.Builder
	fmt.Fprintf(&b, "%s: assignment %d (%s) stored %s after it%s", name, a.Epoch, placementOf(a.Assignment),
		a.stored.Sub(start).Round(time.Millisecond), note)
	if len(starts) == 0 {
		b.WriteString("; no worker restarted")
	} else {
		var each []string
		for _, s := range starts {
			each = append(each, fmt.Sprintf("%s at +%s", s, s.at.Sub(from).Round(time.Millisecond)))
		}
		last := starts[len(starts)-1].at.Sub(from)
		fmt.Fprintf(&b, "; tasks started: %s; pause (change to last tasks started) %s", strings.Join(each, ", "), last.Round(time.Millisecond))
	}
	if published > 0 {
		fmt.Fprintf(&b, "; %d records published meanwhile", published)
	}
	return b.String()
}

// terminateWorker SIGTERMs the live worker id and fails unless it exits
// 0 within stopLimit.
func (d *deployment) terminateWorker(t *testing.T, id string) string {
	t.Helper()
	for _, w := range d.live() {
		if w.id != id {
			continue
		}
		role := d.roleOf(t, w)
		w.terminate(t)
		start := time.Now()
		if msg := w.awaitExit0(start.Add(stopLimit), stopLimit); msg != "" {
			t.Error(msg)
		}
		return fmt.Sprintf("SIGTERM %s (%s), exited in %s", w.incarnation(), role, time.Since(start).Round(time.Millisecond))
	}
	t.Fatalf("no live worker %s to stop (running: %s)", id, d.running())
	return ""
}

// finalAssignment reads the assignment in force from the control bucket
// (through its stream leader), as the workers do.
func (d *deployment) finalAssignment(t *testing.T) assign.Assignment {
	t.Helper()
	a, err := ctlrec.ReadAssignment(ctxFor(t, 10*time.Second), d.ctl.bucket)
	if err != nil {
		t.Fatalf("read the assignment: %v", err)
	}
	return a
}

// restartSummary describes every "tasks started" line of the test (the
// restart durations) and what the stopped parts replayed.
func (d *deployment) restartSummary(t *testing.T) string {
	t.Helper()
	starts := d.allTaskStarts(t)
	var durs []time.Duration
	for _, s := range starts {
		durs = append(durs, s.startup)
	}
	var parts []partStats
	for _, w := range d.workers {
		p, err := w.stoppedParts()
		if err != nil {
			t.Error(err)
		}
		parts = append(parts, p...)
	}
	woken := 0
	for _, w := range d.workers {
		woken += len(w.find(logSourceWoken))
	}
	sum, idle := total(parts), 0
	for _, p := range parts {
		if p.read == 0 {
			idle++ // each part runs for a second or more with records waiting: a stalled source
		}
	}
	return fmt.Sprintf("%d \"tasks started\" lines, startup %s; %d parts stopped (%d of them having read nothing): read %d, processed %d, replayed %d, skipped on replay %d; %d source wake-ups logged (%q)",
		len(starts), durationStats(durs), len(parts), idle, sum.read, sum.processed, sum.replayed, sum.skipped, woken, logSourceWoken)
}

// durationStats prints min, median and max of ds and every value.
func durationStats(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	var each []string
	for _, d := range ds {
		each = append(each, d.Round(time.Millisecond).String())
	}
	return fmt.Sprintf("min %s median %s max %s (%s)", sorted[0].Round(time.Millisecond),
		sorted[len(sorted)/2].Round(time.Millisecond), sorted[len(sorted)-1].Round(time.Millisecond), strings.Join(each, " "))
}

// latencyReport describes, per change, the output latency of the records
// published during it, in the key groups it restarted and in those it left
// running, beside their latency just before it.
func (d *deployment) latencyReport(t *testing.T, msgs []storedMsg, changes []change) string {
	t.Helper()
	samples, err := outputLatencies(msgs, d.model)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, c := range changes {
		line := c.name + ": "
		if !c.stopped.IsZero() && c.started.After(c.stopped) {
			line += fmt.Sprintf("moved tasks processed nothing from the first stop to the last start for %s; ", c.started.Sub(c.stopped).Round(time.Millisecond))
		}
		line += "restarted key groups' " + addedLatency(samples, c.groups, c.at, c.started)
		if len(c.unmoved) > 0 {
			line += "; unmoved key groups' " + addedLatency(samples, c.unmoved, c.at, c.started)
		}
		lines = append(lines, line)
	}
	return summary(lines)
}

// logPartStopping is the line of a worker that stops a part because an
// assignment took some of its tasks.
const logPartStopping = "assignment changed this worker's tasks; stopping a part"

// firstStop is the earliest line of any worker saying it stopped
// processing tasks for assignment epoch; zero when there is none.
func (d *deployment) firstStop(t *testing.T, epoch uint64) time.Time {
	t.Helper()
	var first time.Time
	for _, w := range d.workers {
		for _, l := range append(w.find(logPartStopping), w.find(logTasksReleased)...) {
			if e, err := l.uint("assignment"); err == nil && e == epoch && (first.IsZero() || l.at.Before(first)) {
				first = l.at
			}
		}
	}
	return first
}
