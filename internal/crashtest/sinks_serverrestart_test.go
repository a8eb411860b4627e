package crashtest

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// Server restart runs: a pipeline reads and writes the test's JetStream
// (server.url) while the server is stopped and started again on the same
// store and port. The pipeline may ride it out or exit with an error; a
// run that exits is started again, as a supervisor would. Either way
// nothing may be lost, and the exactly-once sinks must stay exactly once.
const (
	restartRecords = 24_000
	restartKeys    = 500
	// restartOutage is how long the server stays down.
	restartOutage = time.Second
	// restartSupervisorLimit is how many exits the supervisor puts up with.
	restartSupervisorLimit = 5
)

// restartArgs are the flags of every run of the restart tests.
var restartArgs = []string{"--checkpoint-interval", "200ms"}

// TestServerRestart runs the server restart once per sink mode.
func TestServerRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("the server restart runs without -short")
	}
	t.Parallel()
	for _, sink := range []sinkSpec{
		{mode: config.ModeTransactional, batchSize: 250},
		{mode: config.ModeIdempotent},
		{mode: config.ModeAtLeastOnce},
	} {
		t.Run(sink.mode, func(t *testing.T) {
			t.Parallel()
			runServerRestart(t, sink)
		})
	}
}

func runServerRestart(t *testing.T, sink sinkSpec) {
	spec := sumSpec(t, "a")
	spec.sink = sink
	inputs := sumRecords("a", 1, restartRecords, restartKeys)
	ref := newWorld(t, "server restart reference", spec)
	ref.publish(t, "a", inputs)
	refRun := ref.startToIdle(t, restartArgs...)

	w := newWorld(t, "server restart", spec)
	rec := w.startRecorder(t, outputStream, "out.>")
	half := len(inputs) / 2
	w.publish(t, "a", inputs[:half])
	c := w.start(t, nil, restartArgs...)
	// Records flow: some outputs are out, most of the first half is not.
	w.waitOutputs(t, 1000, c)
	before := w.srv.storedCount(t, outputStream)
	w.srv.restart(t, restartOutage)
	t.Logf("server restarted after %d outputs were stored; %s", before, rec)
	w.publish(t, "a", inputs[half:])
	exits := superviseUntilCovered(t, w, c)
	last := w.runs[len(w.runs)-1]
	last.terminate(t)
	ref.complete(t, refRun)

	if sink.mode == config.ModeTransactional {
		requireTransactionalVisibility(t, w, rec, "after the server restart")
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
	reconnects := 0
	for _, r := range w.runs {
		reconnects += len(r.find("reconnected to NATS"))
	}
	outcome := "survived"
	if len(exits) > 0 {
		outcome = "exited"
	}
	t.Logf("server restart, %s sink: the pipeline %s (%d runs, %d reconnects logged); exits: %s", sink.mode, outcome, len(w.runs), reconnects, describeExits(exits))
	fmt.Printf("CRASHTEST-SUMMARY server restart %s: records=%d outputs_before_restart=%d pipeline=%s exits=%d reconnects=%d lost=%d duplicates=%d final_state=%s%s first_exit=%q\n",
		sink.mode, len(inputs), before, outcome, len(exits), reconnects, oc.lost, oc.duplicates, stateResult, oc.detail, firstExit(exits))
	requireSameState(t, "after the server restart", got, want)
	oc.require(t, "outputs after the server restart")
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
