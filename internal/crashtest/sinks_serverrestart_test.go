package crashtest

import (
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// Outage runs: a pipeline reads and writes the test's JetStream
// (server.url) while NATS goes away for a few seconds: the server is
// stopped and started again on the same store and port (a restart), or a
// proxy between the pipeline and the server stops forwarding without
// closing anything (a frozen server, which only the client's pings
// notice). Either outage is well within the default outage budget
// (server.outage_budget, 30s), so the pipeline must ride it out without
// exiting: its sink resends what the lost connection did not acknowledge,
// and checkpoints that fail meanwhile are not counted. A run that exits
// anyway is started again, as a supervisor would, so that the report can
// say what was lost, but the test fails. Nothing may be lost, and the
// exactly-once sinks must stay exactly once.
const (
	restartRecords = 24_000
	restartKeys    = 500
	// restartOutage is how long the server stays down: several reconnect
	// attempts and checkpoint intervals, a fraction of the outage budget.
	restartOutage = 3 * time.Second
	// freezeNoticeLimit bounds the wait for the pipeline to notice a frozen
	// server. Its pings (natsio) notice in 2-3 s; nats.go's default ones
	// (every 2m, 2 outstanding) would take minutes. Not a performance claim.
	freezeNoticeLimit = 45 * time.Second
	// restartSupervisorLimit is how many exits the supervisor puts up with.
	restartSupervisorLimit = 5
)

// restartArgs are the flags of every run of the outage tests.
var restartArgs = []string{"--checkpoint-interval", "200ms"}

// outageSinks are the sink modes every outage test runs with.
var outageSinks = []sinkSpec{
	{mode: config.ModeTransactional, batchSize: 250},
	{mode: config.ModeIdempotent},
	{mode: config.ModeAtLeastOnce},
}

// outageKind is one way of cutting a pipeline off NATS.
type outageKind struct {
	name string
	// preload is the share of the inputs, in quarters, stored before the
	// run starts; the rest is stored after the outage.
	preload int
	// prepare runs on the world before the pipeline starts.
	prepare func(t *testing.T, w *world)
	// cut takes NATS away while the pipeline publishes, and gives it back.
	cut func(t *testing.T, w *world, c *child)
	// inFlight: the cut always catches outputs of the immediate sinks
	// unacknowledged, so they must have been sent again (else the test did
	// not exercise the resend).
	inFlight bool
}

// TestServerRestart runs the server restart once per sink mode.
func TestServerRestart(t *testing.T) {
	runOutages(t, outageKind{name: "server restart", preload: 2,
		cut: func(t *testing.T, w *world, _ *child) { w.srv.restart(t, restartOutage) }})
}

// TestServerFreeze freezes the server under the pipeline once per sink
// mode. Most of the input is stored first, so that outputs are in flight
// when the freeze starts and stay unacknowledged through it: the sink must
// send them again after the reconnect.
func TestServerFreeze(t *testing.T) {
	var proxies sync.Map // world → its proxy
	runOutages(t, outageKind{name: "server freeze", preload: 3, inFlight: true,
		prepare: func(t *testing.T, w *world) {
			p := testutil.StartFreezeProxy(t, w.srv.port)
			proxies.Store(w, p)
			w.connectThrough(t, p.URL)
		},
		cut: func(t *testing.T, w *world, c *child) {
			v, _ := proxies.Load(w)
			p := v.(*testutil.FreezeProxy)
			p.Freeze()
			waitNoticed(t, c)
			p.Thaw()
		}})
}

// waitNoticed waits until c logged that it lost its connection.
func waitNoticed(t *testing.T, c *child) {
	t.Helper()
	deadline := time.Now().Add(freezeNoticeLimit)
	for len(c.find("disconnected from NATS, reconnecting")) == 0 {
		if c.exited() {
			t.Fatalf("%s ended (%v) during the freeze\n%s", c.name, c.waitErr, c.logTail(60))
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not notice the frozen server within %s: are the client pings set?\n%s", c.name, freezeNoticeLimit, c.logTail(60))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func runOutages(t *testing.T, kind outageKind) {
	if testing.Short() {
		t.Skip("the outage runs run without -short")
	}
	t.Parallel()
	for _, sink := range outageSinks {
		t.Run(sink.mode, func(t *testing.T) {
			t.Parallel()
			runOutage(t, kind, sink)
		})
	}
}

func runOutage(t *testing.T, kind outageKind, sink sinkSpec) {
	spec := sumSpec(t, "a")
	spec.sink = sink
	inputs := sumRecords("a", 1, restartRecords, restartKeys)
	ref := newWorld(t, kind.name+" reference", spec)
	ref.publish(t, "a", inputs)
	refRun := ref.startToIdle(t, restartArgs...)

	w := newWorld(t, kind.name, spec)
	if kind.prepare != nil {
		kind.prepare(t, w)
	}
	rec := w.startRecorder(t, outputStream, "out.>")
	first := len(inputs) * kind.preload / 4
	w.publish(t, "a", inputs[:first])
	c := w.start(t, nil, restartArgs...)
	// Records flow: some outputs are out, most of the input is not.
	w.waitOutputs(t, 1000, c)
	before := w.srv.storedCount(t, outputStream)
	kind.cut(t, w, c)
	t.Logf("%s after %d outputs were stored; %s", kind.name, before, rec)
	w.publish(t, "a", inputs[first:])
	exits := superviseUntilCovered(t, w, c)
	last := w.runs[len(w.runs)-1]
	last.terminate(t)
	ref.complete(t, refRun)

	if sink.mode == config.ModeTransactional {
		requireTransactionalVisibility(t, w, rec, "after the "+kind.name)
	}
	var oc outputCheck
	switch sink.mode {
	case config.ModeTransactional:
		oc = transactionalOutputs(t, w, ref, rec)
	case config.ModeIdempotent:
		oc = idempotentOutputs(t, w, ref, rec)
	case config.ModeAtLeastOnce:
		oc = atLeastOnceOutputs(t, w, ref, rec)
	}
	got, want := w.finalState(t), ref.finalState(t)
	stateResult := "equal"
	if len(diffStates(got, want, 1)) > 0 {
		stateResult = "DIFFERENT"
	}
	reconnects, resent := 0, uint64(0)
	for _, r := range w.runs {
		reconnects += len(r.find("reconnected to NATS"))
		for _, l := range r.find("pipeline stopped") {
			n, _ := l.Uint("outputs_resent")
			resent += n
		}
	}
	outcome := "survived"
	if len(exits) > 0 {
		outcome = "exited"
	}
	t.Logf("%s, %s sink: the pipeline %s (%d runs, %d reconnects logged, %d outputs resent); exits: %s",
		kind.name, sink.mode, outcome, len(w.runs), reconnects, resent, describeExits(exits))
	fmt.Printf("CRASHTEST-SUMMARY %s %s: records=%d outputs_before=%d pipeline=%s exits=%d reconnects=%d outputs_resent=%d lost=%d duplicates=%d final_state=%s%s first_exit=%q\n",
		kind.name, sink.mode, len(inputs), before, outcome, len(exits), reconnects, resent, oc.lost, oc.duplicates, stateResult, oc.detail, firstExit(exits))
	requireSameState(t, "after the "+kind.name, got, want)
	oc.require(t, "outputs after the "+kind.name)
	if len(exits) > 0 {
		t.Fatalf("the pipeline exited during an outage (%s) shorter than its outage budget: %s", kind.name, describeExits(exits))
	}
	if kind.inFlight && sink.mode != config.ModeTransactional && resent == 0 {
		t.Fatalf("the %s caught no output in flight (outputs_resent 0): the test did not exercise the resend", kind.name)
	}
}

// runExit is how a run of the pipeline ended by itself.
type runExit struct {
	run   string
	code  int
	error string // the last error the run logged
}

// superviseUntilCovered waits until the newest checkpoint covers every
// input, starting the pipeline again whenever it exits, as a supervisor
// (systemd, Kubernetes) would. It returns the exits it saw.
func superviseUntilCovered(t *testing.T, w *world, c *child) []runExit {
	t.Helper()
	var exits []runExit
	deadline := time.Now().Add(waitLimit)
	for {
		if c.exited() {
			exits = append(exits, runExit{run: c.name, code: c.exitCode(), error: c.lastError()})
			if len(exits) > restartSupervisorLimit {
				t.Fatalf("the pipeline exited %d times after the server restart: %s", len(exits), describeExits(exits))
			}
			c = w.start(t, nil, restartArgs...)
		} else if w.newestOrZero(t) > 0 && w.covered(t) {
			return exits
		}
		if time.Now().After(deadline) {
			t.Fatalf("the newest checkpoint does not cover the input %s after the server restart (exits: %s)\n%s",
				waitLimit, describeExits(exits), c.logTail(60))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// terminate stops c as a service manager does, with SIGTERM, and fails
// unless it stops cleanly.
func (c *child) terminate(t *testing.T) {
	t.Helper()
	if c.exited() {
		t.Fatalf("%s ended by itself before SIGTERM (%v)\n%s", c.name, c.waitErr, c.logTail(60))
	}
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM %s: %v", c.name, err)
	}
	c.waitSuccess(t)
}

// lastError is the last error the child logged: its final "error:" line,
// else its last error-level record, else "".
func (c *child) lastError() string {
	var found string
	for _, l := range c.lines() {
		switch {
		case strings.HasPrefix(l.Raw, "error:"):
			found = l.Raw
		case l.Fields["@level"] == "error":
			found = l.Message()
			if e, ok := l.Fields["error"].(string); ok {
				found += ": " + e
			}
		}
	}
	return found
}

func describeExits(exits []runExit) string {
	if len(exits) == 0 {
		return "none"
	}
	var parts []string
	for _, e := range exits {
		parts = append(parts, fmt.Sprintf("%s exited %d (%s)", e.run, e.code, e.error))
	}
	return strings.Join(parts, "; ")
}

func firstExit(exits []runExit) string {
	if len(exits) == 0 {
		return ""
	}
	return exits[0].error
}
