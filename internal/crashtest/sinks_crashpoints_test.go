package crashtest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/engine/crashpoint"
)

// Transactional crash-point runs: one source, one task and one output per
// input, so the staged outputs of a checkpoint are its inputs' outputs in
// input order, and its atomic batches are consecutive runs of
// txBatchSize of them. What is visible after a death is then exactly the
// outputs of inputs 1..X for an X the checkpoints on disk determine.
const (
	txPointRecords = 2000
	txPointChunks  = 4
	txBatchSize    = 100
)

// txPointArgs: a short interval; every checkpoint retained, so that the
// positions of all of them are on disk for the whole-batch arithmetic.
var txPointArgs = []string{"--checkpoint-interval", "100ms", "--checkpoint-retain", "1000"}

// txVisibleAfter says, for each crash point, up to which input the
// outputs are visible when the process dies there; positions are the
// completed checkpoints' positions in id order, the dying one included
// when it is complete on disk.
var txVisibleAfter = map[string]func(t *testing.T, positions []uint64, occ int) uint64{
	// The dying checkpoint is not on disk; the one before was published.
	"tasks-snapshotted": func(_ *testing.T, p []uint64, _ int) uint64 { return last(p, 0) },
	// The dying checkpoint is on disk; nothing of it was published.
	"manifest-before-announce": func(_ *testing.T, p []uint64, _ int) uint64 { return last(p, 1) },
	// Every batch of the dying checkpoint was published.
	"outbox-published": func(_ *testing.T, p []uint64, _ int) uint64 { return last(p, 0) },
	// Batch occ, counted over all checkpoints, was the last published.
	"outbox-batch": wholeBatches,
}

// last is the position of the checkpoint back places before the newest
// (0 when there is none).
func last(positions []uint64, back int) uint64 {
	if i := len(positions) - 1 - back; i >= 0 {
		return positions[i]
	}
	return 0
}

// wholeBatches is the input up to which outputs are visible after the
// occ-th atomic batch: whole batches of every checkpoint before the
// newest, then the newest's first ones.
func wholeBatches(t *testing.T, positions []uint64, occ int) uint64 {
	t.Helper()
	if len(positions) == 0 {
		t.Fatalf("died at batch %d with no checkpoint on disk", occ)
	}
	before, prev := 0, uint64(0)
	for _, p := range positions[:len(positions)-1] {
		before += batchesOf(p - prev)
		prev = p
	}
	n := positions[len(positions)-1] - prev
	j := occ - before // batches of the newest checkpoint published
	if j < 1 || j > batchesOf(n) {
		t.Fatalf("died at batch %d: checkpoints before the newest (positions %v) have %d batches and the newest %d", occ, positions, before, batchesOf(n))
	}
	return prev + min(uint64(j*txBatchSize), n)
}

func batchesOf(outputs uint64) int { return int((outputs + txBatchSize - 1) / txBatchSize) }

// TestTransactionalCrashPoints kills a transactional pipeline at every
// point of its sink's publication and at the checkpoint points around
// it, at their first and second occurrence. After the death exactly the
// outputs of whole, published batches of completed checkpoints are
// visible; the restart ends with every output exactly once and the
// reference state.
func TestTransactionalCrashPoints(t *testing.T) {
	if testing.Short() {
		t.Skip("the transactional crash points run without -short")
	}
	t.Parallel()
	spec := sumSpec(t, "a")
	spec.sink = sinkSpec{mode: config.ModeTransactional, batchSize: txBatchSize}
	inputs := sumRecords("a", 1, txPointRecords, 50)
	ref := newWorld(t, "transactional crash points reference", spec)
	ref.publish(t, "a", inputs)
	ref.runToCompletion(t, txPointArgs...)
	want, wantOut := ref.finalState(t), payloads(ref.outputs(t))

	points := append(slices.Clone(crashpoint.Outbox), "manifest-before-announce", "tasks-snapshotted")
	for _, point := range points {
		visibleAfter, known := txVisibleAfter[point]
		if !known {
			t.Fatalf("crash point %q is new: add it to txVisibleAfter", point)
		}
		for _, occ := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s:%d", point, occ), func(t *testing.T) {
				t.Parallel()
				w := newWorld(t, fmt.Sprintf("transactional crash at %s:%d", point, occ), spec)
				rec := w.startRecorder(t, outputStream, "out.>")
				c := w.start(t, []string{fmt.Sprintf("%s=%s:%d", crashpoint.Env, point, occ)}, txPointArgs...)
				fed := feedUntilExit(t, w, c, inputs)
				c.wait(t)
				if !c.killedBySIGKILL() {
					t.Fatalf("the run did not die by SIGKILL at %s:%d: %v\n%s", point, occ, c.waitErr, c.logTail(40))
				}
				newest := w.newestOrZero(t)
				requireOnlyCompleteCheckpoints(t, w, newest)
				when := fmt.Sprintf("after the death at %s:%d", point, occ)
				requireTransactionalVisibility(t, w, rec, when)
				positions := checkpointPositions(t, w)
				upTo := visibleAfter(t, positions, occ)
				requireVisiblePrefix(t, w, rec, when, upTo)

				w.publish(t, "a", inputs[fed:])
				restart := w.runToCompletion(t, txPointArgs...)
				if id, err := restart.restoredCheckpoint(); err != nil || id != newest {
					t.Fatalf("the restart restored checkpoint %d (%v), want %d", id, err, newest)
				}
				requireSameState(t, "final state", w.finalState(t), want)
				recorded := rec.requireComplete(t, w.srv, outputStream)
				checkOutputs(asStored(recorded), w.expectedOutputs(t), wantOut).require(t, "recorded outputs")
				t.Logf("%s: checkpoint positions %v, outputs of inputs 1..%d visible; the restart restored %d; %d outputs recorded, %d raw publishes",
					when, positions, upTo, newest, len(recorded), len(rec.rawSnapshot()))
			})
		}
	}
}

// feedUntilExit publishes inputs in txPointChunks chunks while c runs,
// each once the previous one's outputs are visible, so that several
// checkpoints stage outputs. It returns, with how many inputs it
// published, when c has ended or every output is visible.
func feedUntilExit(t *testing.T, w *world, c *child, inputs []input) (published int) {
	t.Helper()
	size := len(inputs) / txPointChunks
	for published < len(inputs) && !c.exited() {
		end := min(published+size, len(inputs))
		w.publish(t, "a", inputs[published:end])
		published = end
		w.srv.waitStoredOrExit(t, outputStream, uint64(end), c)
	}
	return published
}

// waitStoredOrExit polls until stream holds at least n messages or c has
// ended.
func (s *natsServer) waitStoredOrExit(t *testing.T, stream string, n uint64, c *child) {
	t.Helper()
	s.waitStoredUnless(t, stream, n, c.exited, func() string { return c.logTail(60) })
}

// checkpointPositions lists the position of source "a" in every checkpoint
// on disk, oldest first.
func checkpointPositions(t *testing.T, w *world) []uint64 {
	t.Helper()
	ids := w.checkpoints(t)
	slices.Reverse(ids)
	positions := make([]uint64, len(ids))
	for i, id := range ids {
		positions[i] = sourcePosition(w.manifest(t, id), "a")
	}
	return positions
}

// requireVisiblePrefix fails unless the recorded outputs are exactly those
// of inputs 1..upTo of source "a", each once.
func requireVisiblePrefix(t *testing.T, w *world, rec *recorder, when string, upTo uint64) {
	t.Helper()
	var expected []string
	for seq := uint64(1); seq <= upTo; seq++ {
		expected = append(expected, w.outputID("a", seq))
	}
	oc := checkOutputs(asStored(rec.storedSnapshot()), expected, nil)
	if !oc.ok() {
		t.Fatalf("%s: want exactly the outputs of inputs 1..%d visible (checkpoint positions %v); %d visible: %d missing, %d duplicates, %d beyond:\n%s",
			when, upTo, checkpointPositions(t, w), oc.stored, oc.lost, oc.duplicates, oc.unexpected, joinLines(oc.examples))
	}
}
