package crashtest

import (
	"fmt"
	"testing"

	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// The sink kill loops run the kill loop of TestKillLoop once per sink mode
// on a sum2 pipeline with two tasks, with an independent recorder on the
// output stream from before the first run to the end. Each mode is held
// to what docs/config.md promises of it.

// sinkLoopRecords is each sink loop's input: enough that the kills fall
// while outputs are being produced, few enough for a minute per loop.
const (
	sinkLoopRecords = 30_000
	sinkLoopKeys    = 1000
	sinkLoopKills   = 20
)

// TestKillLoopTransactional: every expected output is recorded exactly
// once and nothing else ever is; after each kill nothing of an incomplete
// checkpoint is visible, and everything up to the checkpoint marked
// published and up to the one logged engine.PublishBehind+1 completions
// before a run's last is. One checkpoint is retained: the newest must
// carry the outputs of the completed checkpoints whose publication had
// not ended.
func TestKillLoopTransactional(t *testing.T) {
	runSinkKillLoop(t, sinkSpec{mode: config.ModeTransactional, batchSize: 250}, "--checkpoint-retain", "1")
}

// TestKillLoopIdempotentEventIDs: with output ids from the inputs' event
// ids, the stream stores every expected output exactly once after
// JetStream's deduplication.
func TestKillLoopIdempotentEventIDs(t *testing.T) {
	runSinkKillLoop(t, sinkSpec{mode: config.ModeIdempotent, eventIDHeader: "Nats-Msg-Id"})
}

// TestKillLoopAtLeastOnce: every expected output is stored at least once;
// the duplicates are counted, not refused.
func TestKillLoopAtLeastOnce(t *testing.T) {
	runSinkKillLoop(t, sinkSpec{mode: config.ModeAtLeastOnce})
}

func runSinkKillLoop(t *testing.T, sink sinkSpec, args ...string) {
	if testing.Short() {
		t.Skip("the sink kill loops are long; they run without -short")
	}
	t.Parallel()
	spec := sumSpec(t, "a")
	spec.parallelism = 2
	spec.sink = sink
	var rec *recorder
	kc := killLoopCase{
		name: fmt.Sprintf("%s kill loop", sink.mode), spec: spec, records: sinkLoopRecords, kills: sinkLoopKills, args: args,
		publish: func(t *testing.T, w *world) {
			w.publish(t, "a", sumRecords("a", 1, sinkLoopRecords, sinkLoopKeys))
		},
		beforeRuns: func(t *testing.T, w *world) { rec = w.startRecorder(t, outputStream, "out.>") },
	}
	switch sink.mode {
	case config.ModeTransactional:
		kills := 0
		kc.afterKill = func(t *testing.T, w *world, c *child) {
			kills++
			requireTransactionalVisibility(t, w, rec, fmt.Sprintf("after kill %d (%s)", kills, c.name))
		}
		kc.outputs = func(t *testing.T, w, ref *world) outputCheck {
			return transactionalOutputs(t, w, ref, rec)
		}
	case config.ModeIdempotent:
		kc.outputs = func(t *testing.T, w, ref *world) outputCheck {
			return idempotentOutputs(t, w, ref, rec)
		}
	case config.ModeAtLeastOnce:
		kc.outputs = func(t *testing.T, w, ref *world) outputCheck {
			return atLeastOnceOutputs(t, w, ref, rec)
		}
	}
	runKillLoop(t, kc)
}

// transactionalOutputs accounts every message the recorder saw stored,
// each one counted: the set must be the expected outputs exactly, with the
// reference's payloads. The stream's own contents must say the same.
func transactionalOutputs(t *testing.T, w, ref *world, rec *recorder) outputCheck {
	t.Helper()
	requireTransactionalVisibility(t, w, rec, "at the end")
	recorded := rec.requireComplete(t, w.srv, outputStream)
	expected, refPayloads := w.expectedOutputs(t), payloads(ref.outputs(t))
	checkOutputs(w.outputs(t), expected, refPayloads).require(t, "the stream's contents")
	oc := checkOutputs(asStored(recorded), expected, refPayloads)
	oc.detail = recorderDetail(rec, len(recorded))
	return oc
}

// idempotentOutputs accounts what the stream stores after JetStream's
// deduplication; the raw count says how often outputs were published.
func idempotentOutputs(t *testing.T, w, ref *world, rec *recorder) outputCheck {
	t.Helper()
	recorded := rec.requireComplete(t, w.srv, outputStream)
	oc := checkOutputs(asStored(recorded), w.expectedOutputs(t), payloads(ref.outputs(t)))
	oc.detail = recorderDetail(rec, len(recorded))
	return oc
}

// atLeastOnceOutputs accounts the recorded outputs by payload (they carry
// no ids): every payload of the reference at least once, nothing else, and
// no output with a Nats-Msg-Id.
func atLeastOnceOutputs(t *testing.T, w, ref *world, rec *recorder) outputCheck {
	t.Helper()
	recorded := rec.requireComplete(t, w.srv, outputStream)
	expected := referencePayloads(t, ref)
	for _, m := range recorded {
		if m.msgID != "" {
			t.Fatalf("an at_least_once output carries Nats-Msg-Id %q (stream sequence %d)", m.msgID, m.seq)
		}
	}
	oc := checkOutputs(byPayload(asStored(recorded)), expected, nil)
	oc.duplicatesAllowed = true
	oc.detail = recorderDetail(rec, len(recorded))
	t.Logf("at_least_once: %d outputs recorded for %d expected: %d duplicates", len(recorded), len(expected), oc.duplicates)
	return oc
}

// referencePayloads lists the payloads of a crash-free run's outputs,
// which must be one per input and all different: payloads are then
// identities.
func referencePayloads(t *testing.T, ref *world) []string {
	t.Helper()
	msgs := ref.outputs(t)
	seen := map[string]bool{}
	var out []string
	for _, m := range msgs {
		if seen[string(m.data)] {
			t.Fatalf("%s: payload %s was output twice by a crash-free run", ref.name, m.data)
		}
		seen[string(m.data)] = true
		out = append(out, string(m.data))
	}
	var inputs uint64
	for _, s := range ref.spec.sources {
		inputs += ref.srv.streamLastSeq(t, inputStream(s))
	}
	if uint64(len(out)) != inputs {
		t.Fatalf("%s: %d outputs for %d inputs", ref.name, len(out), inputs)
	}
	return out
}

func recorderDetail(rec *recorder, recorded int) string {
	return fmt.Sprintf(" recorded=%d published_raw=%d", recorded, len(rec.rawSnapshot()))
}
