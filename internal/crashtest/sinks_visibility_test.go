package crashtest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/recovery"
)

// A transactional sink publishes the outputs of checkpoint N only after N
// is complete on disk; a periodic checkpoint is announced ("checkpoint
// completed") at once and its outputs are published behind it, in
// checkpoint order, while the next ones run, with at most
// engine.PublishBehind completed checkpoints waiting when one is
// triggered. So, whenever its process is dead:
//
//   - upper bound: every visible output belongs to an input at or before
//     the newest completed checkpoint's position on its source: nothing of
//     an incomplete checkpoint is visible;
//   - lower bound: every output of an input at or before the position of
//     the checkpoint the data dir marks as published through
//     (OUTBOX-PUBLISHED, written after each publication), and of the
//     checkpoint a run logged as completed engine.PublishBehind+1
//     completions before its last, is visible.
//
// The outputs of the newest PublishBehind+1 completed checkpoints may or
// may not be visible (a death before or during their publication); the
// restart publishes them, and the end of every test checks that each
// output is then stored exactly once.

// outputInput parses a sequence-derived output id of w's operator into its
// source and input stream sequence.
func (w *world) outputInput(id string) (source string, seq uint64, ok bool) {
	rest, found := strings.CutPrefix(id, pipelineName+"."+w.spec.operator+".")
	if !found {
		return "", 0, false
	}
	parts := strings.Split(rest, ".")
	if len(parts) != 3 {
		return "", 0, false
	}
	seq, err := strconv.ParseUint(parts[1], 10, 64)
	return parts[0], seq, err == nil
}

// newestPositions is the newest completed checkpoint's source positions
// and id (0 and no positions: none yet).
func (w *world) newestPositions(t *testing.T) (uint64, map[string]uint64) {
	t.Helper()
	id := w.newestOrZero(t)
	if id == 0 {
		return 0, map[string]uint64{}
	}
	return id, manifestPositions(w.manifest(t, id))
}

// completedRun is one run's "checkpoint completed" records, in order.
type completedRun struct {
	ids       []uint64
	positions []map[string]uint64
}

// loggedCompletions reads every run's completed checkpoints from its log.
func (w *world) loggedCompletions(t *testing.T) []completedRun {
	t.Helper()
	var runs []completedRun
	for _, c := range w.runs {
		var r completedRun
		for _, l := range c.find("checkpoint completed") {
			id, _ := l.Uint("checkpoint")
			positions, err := logPositions(l)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			r.ids, r.positions = append(r.ids, id), append(r.positions, positions)
		}
		runs = append(runs, r)
	}
	return runs
}

// publishedLowerBound is, per source, the position up to which every
// output must be visible, and why: the checkpoint each run logged as
// completed engine.PublishBehind+1 completions before its last (that
// last one was triggered only once it was published), and the checkpoint
// the data dir marks as published through.
func (w *world) publishedLowerBound(t *testing.T) (string, map[string]uint64) {
	t.Helper()
	pos, why := map[string]uint64{}, "nothing published"
	raise := func(p map[string]uint64, reason string) {
		for s, v := range p {
			if v > pos[s] {
				pos[s], why = v, reason
			}
		}
	}
	known := map[uint64]map[string]uint64{}
	for i, r := range w.loggedCompletions(t) {
		for j, id := range r.ids {
			known[id] = r.positions[j]
		}
		if k := len(r.ids) - 2 - engine.PublishBehind; k >= 0 {
			raise(r.positions[k], fmt.Sprintf("run %d logged checkpoint %d completed and %d more after it", i+1, r.ids[k], engine.PublishBehind+1))
		}
	}
	through, err := recovery.PublishedThrough(w.cfg.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	if through > 0 {
		p, ok := known[through]
		if !ok && slices.Contains(w.checkpoints(t), through) {
			p, ok = manifestPositions(w.manifest(t, through)), true
		}
		if ok {
			raise(p, fmt.Sprintf("the data dir marks checkpoint %d published", through))
		} else {
			// Restored without having been announced, then pruned: its
			// positions are nowhere left to compare with.
			t.Logf("the data dir marks checkpoint %d published; no run logged it and it is no longer on disk", through)
		}
	}
	return why, pos
}

// manifestPositions is m's source positions by source name.
func manifestPositions(m checkpoint.Manifest) map[string]uint64 {
	pos := map[string]uint64{}
	for _, s := range m.Sources {
		pos[s.Name] = s.LastSequence
	}
	return pos
}

// logPositions reads the "positions" field of a "checkpoint completed"
// record: source name → last sequence.
func logPositions(l logLine) (map[string]uint64, error) {
	raw, ok := l.Fields["positions"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("no positions in %s", l.Raw)
	}
	out := map[string]uint64{}
	for s, v := range raw {
		n, ok := v.(json.Number)
		if !ok {
			return nil, fmt.Errorf("position of %s is %v in %s", s, v, l.Raw)
		}
		p, err := strconv.ParseUint(n.String(), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("position of %s in %s: %w", s, l.Raw, err)
		}
		out[s] = p
	}
	return out, nil
}

// requireTransactionalVisibility fails unless transactionalVisibility
// holds; when says at which moment of the test.
func requireTransactionalVisibility(t *testing.T, w *world, rec *recorder, when string) {
	t.Helper()
	if err := transactionalVisibility(t, w, rec); err != nil {
		t.Fatalf("%s: %v", when, err)
	}
}

// transactionalVisibility checks both bounds on what the recorder saw of
// w's outputs, stored and raw, once every run of w has ended.
func transactionalVisibility(t *testing.T, w *world, rec *recorder) error {
	t.Helper()
	stored := rec.catchUp(t, w.srv, outputStream)
	newest, upper := w.newestPositions(t)
	for _, set := range []struct {
		what string
		msgs []recordedMsg
	}{{"stored", stored}, {"published (raw)", rec.rawSnapshot()}} {
		for _, m := range set.msgs {
			source, seq, ok := w.outputInput(m.msgID)
			if !ok {
				return fmt.Errorf("%s output with id %q: not an output id of operator %s", set.what, m.msgID, w.spec.operator)
			}
			if seq > upper[source] {
				return fmt.Errorf("%s output %s (input %d of %s) is visible, but the newest completed checkpoint (%d) covers %s only up to %d: it belongs to an incomplete checkpoint",
					set.what, m.msgID, seq, source, newest, source, upper[source])
			}
		}
	}
	why, lower := w.publishedLowerBound(t)
	visible := map[string]bool{}
	for _, m := range stored {
		visible[m.msgID] = true
	}
	for source, last := range lower {
		for seq := uint64(1); seq <= last; seq++ {
			if id := w.outputID(source, seq); !visible[id] {
				return fmt.Errorf("output %s is not visible, but %s, which covers %s up to %d", id, why, source, last)
			}
		}
	}
	return nil
}

// TestVisibilityCheckSeesEarlyOutputs: the transactional visibility check
// is not vacuous. An idempotent sink publishes as it processes, so with
// no checkpoint at all its outputs are ahead of any checkpoint: the check
// must refuse them.
func TestVisibilityCheckSeesEarlyOutputs(t *testing.T) {
	w := newWorld(t, "early outputs", sumSpec(t, "a"))
	rec := w.startRecorder(t, outputStream, "out.>")
	c := w.start(t, nil, "--checkpoint-interval=-1s")
	w.publish(t, "a", sumRecords("a", 1, 100, 7))
	w.waitOutputs(t, 100, c)
	c.kill(t)
	err := transactionalVisibility(t, w, rec)
	if err == nil || !strings.Contains(err.Error(), "belongs to an incomplete checkpoint") {
		t.Fatalf("the check passed outputs published before any checkpoint: %v", err)
	}
	t.Logf("refused as it should: %v", err)
}
