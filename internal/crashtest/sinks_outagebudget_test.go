package crashtest

import (
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// TestServerOutagePastBudget freezes the server for longer than the
// pipeline's outage budget (server.outage_budget = "2s"): the run stops by
// itself, with a message that names NATS and the server's URL rather than
// the disk. Once the server answers again, a new run resumes from the last
// completed checkpoint and every output is there exactly once.
func TestServerOutagePastBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("the outage runs run without -short")
	}
	t.Parallel()
	spec := sumSpec(t, "a")
	spec.sink = sinkSpec{mode: config.ModeIdempotent}
	inputs := sumRecords("a", 1, restartRecords, restartKeys)
	ref := newWorld(t, "outage past budget reference", spec)
	ref.publish(t, "a", inputs)
	refRun := ref.startToIdle(t, restartArgs...)

	w := newWorld(t, "outage past budget", spec)
	w.outageBudget = "2s"
	proxy := testutil.StartFreezeProxy(t, w.srv.port)
	w.connectThrough(t, proxy.URL)
	rec := w.startRecorder(t, outputStream, "out.>")
	first := len(inputs) * 3 / 4
	w.publish(t, "a", inputs[:first])
	c := w.start(t, nil, restartArgs...)
	w.waitOutputs(t, 1000, c)
	proxy.Freeze()
	c.wait(t) // the budget ends the run; runLimit bounds the wait
	msg := c.lastError()
	if c.exitCode() == 0 || !strings.Contains(msg, "NATS unreachable") || !strings.Contains(msg, proxy.URL) ||
		!strings.Contains(msg, "outage_budget") || strings.Contains(msg, "disk space") {
		t.Fatalf("%s exited %d with %q; want an error that names NATS at %s and the outage budget, not the disk\n%s",
			c.name, c.exitCode(), msg, proxy.URL, c.logTail(40))
	}
	t.Logf("past the budget: %s", msg)
	proxy.Thaw()
	w.publish(t, "a", inputs[first:])
	exits := superviseUntilCovered(t, w, w.start(t, nil, restartArgs...))
	w.runs[len(w.runs)-1].terminate(t)
	ref.complete(t, refRun)
	if len(exits) > 0 {
		t.Fatalf("the run after the outage exited: %s", describeExits(exits))
	}
	requireSameState(t, "after an outage past the budget", w.finalState(t), ref.finalState(t))
	idempotentOutputs(t, w, ref, rec).require(t, "outputs after an outage past the budget")
}
