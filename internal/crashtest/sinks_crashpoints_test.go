package crashtest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/engine/crashpoint"
	"github.com/wasmstream/wasmstream/internal/engine/recovery"
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

// txDeath is what a transactional crash-point run left on disk: the
// completed checkpoints' positions in id order (the dying one included
// when it is complete on disk), the crash point's occurrence, and the
// positions up to which outputs must be visible whatever the point
// (publishedLowerBound) and that the data dir marks published.
type txDeath struct {
	positions   []uint64
	occ         int
	lower, mark uint64
}

// txVisibleAfter says, for each crash point, which prefixes 1..X of the
// inputs may have their outputs visible when the process dies there. The
// publication runs behind the checkpoints, so X is not one number; but it
// is always the end of a whole atomic batch (batchEnds), of a completed
// checkpoint, at or above the lower bound, and each point pins it further.
var txVisibleAfter = map[string]func(t *testing.T, d txDeath) []uint64{
	// The dying checkpoint is not on disk; the ones before may be being
	// published: any whole batch up to the newest on disk.
	"tasks-snapshotted": func(_ *testing.T, d txDeath) []uint64 {
		return batchEndsWithin(d, d.lower, last(d.positions, 0))
	},
	// The dying checkpoint is on disk, and nothing of it was published:
	// its publication is asked for only after this point.
	"manifest-before-announce": func(_ *testing.T, d txDeath) []uint64 {
		return batchEndsWithin(d, d.lower, last(d.positions, 1))
	},
	// The occ-th publication ended, with every staged output up to the
	// checkpoint it named, newer than the one marked published before.
	"outbox-published": func(_ *testing.T, d txDeath) []uint64 {
		var ok []uint64
		for _, p := range d.positions {
			if p > d.mark && p >= d.lower {
				ok = append(ok, p)
			}
		}
		return ok
	},
	// The occ-th batch, counted over all publications of the run, was
	// answered; up to BatchesInFlight-1 after it may have been stored.
	"outbox-batch": func(t *testing.T, d txDeath) []uint64 {
		ends := batchEnds(d.positions)
		if d.occ > len(ends) {
			t.Fatalf("died at batch %d, but the checkpoints on disk (positions %v) have %d batches", d.occ, d.positions, len(ends))
		}
		var ok []uint64
		for j := d.occ; j <= min(d.occ+engine.BatchesInFlight-1, len(ends)); j++ {
			if ends[j-1] >= d.lower {
				ok = append(ok, ends[j-1])
			}
		}
		return ok
	},
}

// last is the position of the checkpoint back places before the newest
// (0 when there is none).
func last(positions []uint64, back int) uint64 {
	if i := len(positions) - 1 - back; i >= 0 {
		return positions[i]
	}
	return 0
}

// batchEnds lists, in order, the input each atomic batch of the
// checkpoints at positions ends with: every checkpoint's outputs are split
// into batches of txBatchSize, published in checkpoint order.
func batchEnds(positions []uint64) []uint64 {
	var ends []uint64
	prev := uint64(0)
	for _, p := range positions {
		for e := prev + txBatchSize; e < p+txBatchSize; e += txBatchSize {
			ends = append(ends, min(e, p))
		}
		prev = p
	}
	return ends
}

// batchEndsWithin is 0 (nothing published yet) and the batch ends in
// [lo, hi], those that lo allows.
func batchEndsWithin(d txDeath, lo, hi uint64) []uint64 {
	var ok []uint64
	if lo == 0 {
		ok = append(ok, 0)
	}
	for _, e := range batchEnds(d.positions) {
		if e >= lo && e <= hi {
			ok = append(ok, e)
		}
	}
	return ok
}

// TestTransactionalCrashPoints kills a transactional pipeline at every
// point of its sink's publication and at the checkpoint points around
// it, at their first and second occurrence. After the death exactly the
// outputs of inputs 1..X are visible, each once, for an X that
// txVisibleAfter allows: whole, published batches of completed
// checkpoints. The restart publishes what the restored checkpoint holds,
// older unpublished epochs included, before anything new: it ends with
// every output exactly once, stored in input order, and the reference
// state.
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
				d := txDeath{positions: positions, occ: occ, lower: lowerOfA(t, w), mark: markedPositionOfA(t, w)}
				allowed := visibleAfter(t, d)
				upTo := uint64(len(rec.storedSnapshot()))
				if !slices.Contains(allowed, upTo) {
					t.Fatalf("%s: the outputs of %d inputs are visible; allowed: %v (checkpoint positions %v, lower bound %d, marked published %d)",
						when, upTo, allowed, positions, d.lower, d.mark)
				}
				requireVisiblePrefix(t, w, rec, when, upTo)

				w.publish(t, "a", inputs[fed:])
				restart := w.runToCompletion(t, txPointArgs...)
				if id, err := restart.restoredCheckpoint(); err != nil || id != newest {
					t.Fatalf("the restart restored checkpoint %d (%v), want %d", id, err, newest)
				}
				requireSameState(t, "final state", w.finalState(t), want)
				recorded := rec.requireComplete(t, w.srv, outputStream)
				checkOutputs(asStored(recorded), w.expectedOutputs(t), wantOut).require(t, "recorded outputs")
				requireInputOrder(t, w, recorded)
				t.Logf("%s: checkpoint positions %v, outputs of inputs 1..%d visible (allowed %v); the restart restored %d; %d outputs recorded, %d raw publishes",
					when, positions, upTo, allowed, newest, len(recorded), len(rec.rawSnapshot()))
			})
		}
	}
}

// lowerOfA is publishedLowerBound for source "a".
func lowerOfA(t *testing.T, w *world) uint64 {
	t.Helper()
	_, lower := w.publishedLowerBound(t)
	return lower["a"]
}

// markedPositionOfA is the position on source "a" of the checkpoint the
// data dir marks as published through (0: none).
func markedPositionOfA(t *testing.T, w *world) uint64 {
	t.Helper()
	through, err := recovery.PublishedThrough(w.cfg.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	if through == 0 {
		return 0
	}
	return sourcePosition(w.manifest(t, through), "a")
}

// requireInputOrder fails unless the stream stores the outputs in the
// order of their inputs on source "a": outputs become visible in
// checkpoint order, and a restart publishes what the restored checkpoint
// holds before any new output.
func requireInputOrder(t *testing.T, w *world, recorded []recordedMsg) {
	t.Helper()
	var prev uint64
	for _, m := range recorded {
		_, seq, ok := w.outputInput(m.msgID)
		if !ok || seq <= prev {
			t.Fatalf("stream sequence %d holds the output %s after the output of input %d: not in input order", m.seq, m.msgID, prev)
		}
		prev = seq
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
