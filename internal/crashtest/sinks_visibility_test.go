package crashtest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// A transactional sink publishes the outputs of checkpoint N only after N
// is complete on disk, and before it logs "checkpoint completed". So,
// whenever its process is dead:
//
//   - upper bound: every visible output belongs to an input at or before
//     the newest completed checkpoint's position on its source: nothing of
//     an incomplete checkpoint is visible;
//   - lower bound: every output of an input at or before the position of a
//     checkpoint some run logged as completed is visible.
//
// The outputs of the newest checkpoint may or may not be visible (a death
// between its completion and the end of its publication); the restart
// publishes them.

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
	pos := map[string]uint64{}
	if id == 0 {
		return 0, pos
	}
	for _, s := range w.manifest(t, id).Sources {
		pos[s.Name] = s.LastSequence
	}
	return id, pos
}

// loggedCompleted is, per source, the highest position of a checkpoint
// that some run of w logged as completed, and that checkpoint's id.
func (w *world) loggedCompleted(t *testing.T) (uint64, map[string]uint64) {
	t.Helper()
	var newest uint64
	pos := map[string]uint64{}
	for _, c := range w.runs {
		for _, l := range c.find("checkpoint completed") {
			id, _ := l.Uint("checkpoint")
			positions, err := logPositions(l)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			newest = max(newest, id)
			for s, p := range positions {
				pos[s] = max(pos[s], p)
			}
		}
	}
	return newest, pos
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
	logged, lower := w.loggedCompleted(t)
	visible := map[string]bool{}
	for _, m := range stored {
		visible[m.msgID] = true
	}
	for source, last := range lower {
		for seq := uint64(1); seq <= last; seq++ {
			if id := w.outputID(source, seq); !visible[id] {
				return fmt.Errorf("output %s is not visible, but checkpoint %d, which covers %s up to %d, was logged as completed",
					id, logged, source, last)
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
