package acceptance

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/cluster/assign"
)

// Messages of the workers' logs about their tasks (internal/cluster/worker
// part.go, internal/engine progress.go).
const (
	logTasksStarted    = "tasks started"
	logTasksReleased   = "tasks released"
	logPipelineStopped = "pipeline stopped"
	// logSourceWoken: a source's pull consumer held no pull request while
	// records waited (natsio/source_wake.go).
	logSourceWoken = "source consumer had no pull request outstanding; woke it (nats.go lost wake-up, see natsio/source_wake.go)"
)

// assignmentLimit bounds the wait for the assignment that carries out a
// change (a scale, a join, a leave: worker_timeout + stabilization, plus
// lease_ttl when the coordinator left), restartLimit the wait for the
// workers to start the tasks it gives them. Reaching one fails the test.
const (
	assignmentLimit = 90 * time.Second
	restartLimit    = 90 * time.Second
)

// seenAssignment is an assignment as the control recorder saw it stored.
type seenAssignment struct {
	assign.Assignment
	stored time.Time // the control stream's time stamp of the record
}

// assignmentsSeen decodes every assignment record the control recorder
// saw, in stream order (epochs increase: checkControl checks it).
func (d *deployment) assignmentsSeen(t *testing.T) []seenAssignment {
	t.Helper()
	var out []seenAssignment
	for _, m := range d.ctl.snapshot() {
		if m.key != assign.Key || m.op != "" {
			continue
		}
		a, err := assign.Decode(m.data)
		if err != nil {
			t.Fatalf("control bucket seq %d: %v", m.seq, err)
		}
		out = append(out, seenAssignment{Assignment: a, stored: m.stamp})
	}
	return out
}

// newestAssignment is the last assignment the control recorder saw; the
// zero value before the first.
func (d *deployment) newestAssignment(t *testing.T) seenAssignment {
	t.Helper()
	seen := d.assignmentsSeen(t)
	if len(seen) == 0 {
		return seenAssignment{}
	}
	return seen[len(seen)-1]
}

// awaitAssignment waits until the newest assignment is newer than epoch
// after and satisfies want, and returns it.
func (d *deployment) awaitAssignment(t *testing.T, after uint64, what string, want func(assign.Assignment) bool) seenAssignment {
	t.Helper()
	deadline := time.Now().Add(assignmentLimit)
	for {
		a := d.newestAssignment(t)
		if a.Epoch > after && want(a.Assignment) {
			return a
		}
		d.requireRunning(t)
		if time.Now().After(deadline) {
			t.Fatalf("no assignment after epoch %d that %s within %s; newest: epoch %d %s", after, what, assignmentLimit, a.Epoch, placementOf(a.Assignment))
		}
		time.Sleep(pollEvery)
	}
}

// taskStart is one "tasks started" line of a worker, or one "tasks
// released" line of a worker that only handed tasks over.
type taskStart struct {
	worker   *worker
	epoch    uint64 // the assignment the worker started the tasks of
	tasks    string // as logged: map[sum:[0 1]]
	restored uint64 // the cluster checkpoint it restored them from
	startup  time.Duration
	// waited is from when the server stored the assignment to the start
	// (the moved tasks' pause before their replay); 0 when not logged.
	waited   time.Duration
	at       time.Time
	released bool // a "tasks released" line: nothing started
}

func (s taskStart) String() string {
	if s.released {
		return fmt.Sprintf("%s released %s", s.worker.id, s.tasks)
	}
	return fmt.Sprintf("%s %s from checkpoint %d, startup %s, %s after the assignment was stored", s.worker.id, s.tasks, s.restored,
		s.startup.Round(time.Millisecond), s.waited.Round(time.Millisecond))
}

// indices are the acceptance operator's task indices of the line.
func (s taskStart) indices(t testing.TB) []int {
	t.Helper()
	return s.indicesOf(t, operatorName)
}

// indicesOf are operator's task indices of the line.
func (s taskStart) indicesOf(t testing.TB, operator string) []int {
	t.Helper()
	m := regexp.MustCompile(`(?:^|[\[ ])` + regexp.QuoteMeta(operator) + `:\[([0-9 ]*)\]`).FindStringSubmatch(s.tasks)
	if m == nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(m[1]) {
		i, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("tasks %q of a log line: %v", s.tasks, err)
		}
		out = append(out, i)
	}
	return out
}

// taskReleases parses the worker's "tasks released" lines, in log order.
func (w *worker) taskReleases(t testing.TB) []taskStart {
	t.Helper()
	var out []taskStart
	for _, l := range w.find(logTasksReleased) {
		s := taskStart{worker: w, at: l.at, released: true}
		var err error
		if s.epoch, err = l.uint("assignment"); err != nil {
			t.Fatal(err)
		}
		s.tasks, _ = l.field("tasks")
		out = append(out, s)
	}
	return out
}

// taskStarts parses the worker's "tasks started" lines, in log order.
func (w *worker) taskStarts(t testing.TB) []taskStart {
	t.Helper()
	var out []taskStart
	for _, l := range w.find(logTasksStarted) {
		s := taskStart{worker: w, at: l.at}
		var err error
		if s.epoch, err = l.uint("assignment"); err != nil {
			t.Fatal(err)
		}
		if s.restored, err = l.uint("restored_checkpoint"); err != nil {
			t.Fatal(err)
		}
		s.tasks, _ = l.field("tasks")
		v, _ := l.field("startup")
		if s.startup, err = time.ParseDuration(v); err != nil {
			t.Fatalf("startup of the log line %q: %v", l.raw, err)
		}
		if v, ok := l.field("since_assignment"); ok {
			if s.waited, err = time.ParseDuration(v); err != nil {
				t.Fatalf("since_assignment of the log line %q: %v", l.raw, err)
			}
		}
		out = append(out, s)
	}
	return out
}

// allTaskStarts is every worker's "tasks started" lines, in time order.
func (d *deployment) allTaskStarts(t *testing.T) []taskStart {
	t.Helper()
	var out []taskStart
	for _, w := range d.workers {
		out = append(out, w.taskStarts(t)...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at.Before(out[j].at) })
	return out
}

// rangesOn lists the key-group ranges a gives worker id, per operator.
func rangesOn(a assign.Assignment, id string) []string {
	var out []string
	for _, r := range assign.WorkerTasks(a, id) {
		out = append(out, r.Operator+r.Range.String())
	}
	return out
}

// placementOf lists each worker's ranges in a, for reports.
func placementOf(a assign.Assignment) string {
	var parts []string
	for _, id := range workersOf(a) {
		parts = append(parts, id+"="+strings.Join(rangesOn(a, id), ","))
	}
	return fmt.Sprintf("P=%d %s", parallelismOf(a), strings.Join(parts, " "))
}

// workersOf lists the workers a gives tasks, sorted.
func workersOf(a assign.Assignment) []string {
	var ids []string
	for _, o := range a.Operators {
		for _, tk := range o.Tasks {
			if !slices.Contains(ids, tk.Worker) {
				ids = append(ids, tk.Worker)
			}
		}
	}
	slices.Sort(ids)
	return ids
}

// parallelismOf is the acceptance operator's parallelism in a.
func parallelismOf(a assign.Assignment) int { return stageParallelism(a, operatorName) }

// stageParallelism is operator's number of tasks in a.
func stageParallelism(a assign.Assignment, operator string) int {
	for _, o := range a.Operators {
		if o.Name == operator {
			return len(o.Tasks)
		}
	}
	return 0
}

// sinceEpoch is the first epoch of the run of assignments, ending with a,
// over which worker id holds the ranges a gives it: the assignment whose
// "tasks started" line started them (a worker whose ranges stay the same
// takes a new epoch without a restart: follow.go apply).
func sinceEpoch(hist []seenAssignment, a assign.Assignment, id string) uint64 {
	want, e := rangesOn(a, id), a.Epoch
	for i := len(hist) - 1; i >= 0; i-- {
		h := hist[i]
		if h.Epoch > a.Epoch {
			continue
		}
		if !slices.Equal(rangesOn(h.Assignment, id), want) {
			break
		}
		e = h.Epoch
	}
	return e
}

// awaitRestarts waits until every worker whose ranges a changed since
// epoch prev logged "tasks started" for them, and returns those lines in
// time order. Should a newer assignment follow a meanwhile, it waits for
// that one's and says so in its second result.
func (d *deployment) awaitRestarts(t *testing.T, prev uint64, a seenAssignment) ([]taskStart, string) {
	t.Helper()
	deadline := time.Now().Add(restartLimit)
	note := ""
	for {
		if n := d.newestAssignment(t); n.Epoch > a.Epoch {
			note += fmt.Sprintf(" (assignment %d superseded by %d while its tasks started)", a.Epoch, n.Epoch)
			a = n
		}
		got, missing := d.restartsFor(t, prev, a)
		if len(missing) == 0 {
			sort.SliceStable(got, func(i, j int) bool { return got[i].at.Before(got[j].at) })
			return got, note
		}
		d.requireRunning(t)
		if time.Now().After(deadline) {
			t.Fatalf("assignment %d (%s): no \"tasks started\" line of %s within %s", a.Epoch, placementOf(a.Assignment), strings.Join(missing, ", "), restartLimit)
		}
		time.Sleep(pollEvery)
	}
}

// restartsFor finds, for each worker whose ranges in a differ from those
// it held at epoch prev, the line of the epoch that gave it them: "tasks
// started" when it gained tasks, "tasks released" (or "tasks started",
// after a lost membership) when it only handed some over; missing names
// the workers without one yet.
func (d *deployment) restartsFor(t *testing.T, prev uint64, a seenAssignment) (got []taskStart, missing []string) {
	t.Helper()
	hist := d.assignmentsSeen(t)
	for _, id := range workersOf(a.Assignment) {
		e := sinceEpoch(hist, a.Assignment, id)
		if e <= prev {
			continue // unchanged by what the test did
		}
		_, start := assign.Changes(assignmentBefore(hist, e), a.Assignment, id)
		var line *taskStart
		for _, w := range d.workers {
			if w.id != id || w.down {
				continue
			}
			lines := w.taskStarts(t)
			if len(start) == 0 {
				// Only released tasks; a worker that lost its
				// membership meanwhile (a NATS fault) started them all
				// again instead.
				lines = append(w.taskReleases(t), lines...)
			}
			for _, s := range lines {
				if s.epoch == e {
					line = &s
					break
				}
			}
		}
		if line == nil {
			missing = append(missing, fmt.Sprintf("%s for assignment %d", id, e))
			continue
		}
		got = append(got, *line)
	}
	return got, missing
}

// assignmentBefore is the newest assignment of hist older than epoch e;
// the zero value when none is.
func assignmentBefore(hist []seenAssignment, e uint64) assign.Assignment {
	var out assign.Assignment
	for _, h := range hist {
		if h.Epoch < e && h.Epoch > out.Epoch {
			out = h.Assignment
		}
	}
	return out
}

// partStats are the counters of one "pipeline stopped" line: the totals
// of one run of a worker's tasks (a part: each change of its ranges
// stops one and starts another).
type partStats struct {
	read, processed, replayed, skipped uint64
}

// stoppedParts parses the worker's "pipeline stopped" lines.
func (w *worker) stoppedParts() ([]partStats, error) {
	var out []partStats
	for _, l := range w.find(logPipelineStopped) {
		var s partStats
		var err error
		if s.read, err = l.uint("read"); err != nil {
			return nil, err
		}
		if s.processed, err = l.uint("processed"); err != nil {
			return nil, err
		}
		if _, ok := l.field("replayed"); ok { // only a restored part logs them
			if s.replayed, err = l.uint("replayed"); err != nil {
				return nil, err
			}
			if s.skipped, err = l.uint("skipped_on_replay"); err != nil {
				return nil, err
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// total adds the parts' counters up.
func total(parts []partStats) partStats {
	var s partStats
	for _, p := range parts {
		s.read += p.read
		s.processed += p.processed
		s.replayed += p.replayed
		s.skipped += p.skipped
	}
	return s
}
