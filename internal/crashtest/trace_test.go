package crashtest

import (
	"testing"
)

// traceKeys spreads the trace's records over a few keys.
const traceKeys = 7

// TestTrace is the design's worked trace: checkpoint at 100, process
// 101-150, crash at 150, restart: the checkpoint holds exactly the state
// at 100, the source resumes at 101, 101-150 are replayed, and the final
// state equals a crash-free run's with one output per input.
func TestTrace(t *testing.T) {
	ref100 := newWorld(t, "reference 1-100", sumSpec(t, "a"))
	ref100.publish(t, "a", sumRecords("a", 1, 100, traceKeys))
	ref100.runToCompletion(t)
	ref200 := newWorld(t, "reference 1-200", sumSpec(t, "a"))
	ref200.publish(t, "a", sumRecords("a", 1, 200, traceKeys))
	ref200.runToCompletion(t)

	w := newWorld(t, "trace", sumSpec(t, "a"))
	c := w.start(t, nil, "--checkpoint-interval=-1s")
	w.publish(t, "a", sumRecords("a", 1, 100, traceKeys))
	w.waitOutputs(t, 100, c)
	n := trigger(t, w, c)
	w.publish(t, "a", sumRecords("a", 101, 150, traceKeys))
	w.waitOutputs(t, 150, c)
	c.kill(t)

	if got := w.newest(t); got != n {
		t.Fatalf("newest checkpoint after the kill is %d, want %d", got, n)
	}
	if pos := w.manifest(t, n).Sources[0].LastSequence; pos != 100 {
		t.Fatalf("checkpoint %d: source position %d, want 100", n, pos)
	}
	requireSameState(t, "the checkpoint at 100", w.dump(t, n), ref100.finalState(t))

	restart := w.startToIdle(t, "--checkpoint-interval=-1s")
	w.publish(t, "a", sumRecords("a", 151, 200, traceKeys))
	w.complete(t, restart)
	if id, err := restart.restoredCheckpoint(); err != nil || id != n {
		t.Fatalf("the restart restored checkpoint %d (%v), want %d", id, err, n)
	}
	resume := restart.find("resuming source from the checkpoint")
	if seq, ok := firstUint(resume, "sequence"); !ok || seq != 101 {
		t.Fatalf("the restart resumed the source at %d (%d records logged), want 101", seq, len(resume))
	}
	requireSameState(t, "the final state", w.finalState(t), ref200.finalState(t))
	checkOutputs(w.outputs(t), w.expectedOutputs(t), payloads(ref200.outputs(t))).require(t, "trace")
}

// firstUint is a numeric field of the first of lines.
func firstUint(lines []logLine, field string) (uint64, bool) {
	if len(lines) == 0 {
		return 0, false
	}
	return lines[0].Uint(field)
}
