package crashtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/checkpoint"
)

// TestCorruptCheckpointStopsTheRun: one flipped byte in a state file of the
// newest checkpoint stops the binary with an error naming the checkpoint
// and the file (no silent fresh start, no silent fallback); rolling back
// with --from-checkpoint is the explicit way on, and replaying from the
// older cut ends in the reference state.
func TestCorruptCheckpointStopsTheRun(t *testing.T) {
	inputs := sumRecords("a", 1, 1000, 13)
	ref := newWorld(t, "corruption reference", sumSpec(t, "a"))
	ref.publish(t, "a", inputs)
	ref.runToCompletion(t)

	w := newWorld(t, "corruption", sumSpec(t, "a"))
	w.publish(t, "a", inputs[:500])
	w.runToCompletion(t)
	w.publish(t, "a", inputs[500:])
	w.runToCompletion(t)
	ids := w.checkpoints(t)
	if len(ids) < 2 {
		t.Fatalf("want at least two checkpoints to roll back between, have %v", ids)
	}
	newest, older := ids[0], ids[1]
	file := corruptStateFile(t, w.root(), newest)
	if err := checkpoint.Verify(w.root(), older); err != nil {
		t.Fatalf("corrupting checkpoint %d damaged checkpoint %d too: %v", newest, older, err)
	}

	refused := w.start(t, nil, "--stop-when-idle", idleStop)
	refused.wait(t)
	if refused.killedBySIGKILL() || refused.exitCode() == 0 {
		t.Fatalf("the run over a corrupt checkpoint did not fail (%v)\n%s", refused.waitErr, refused.logTail(40))
	}
	out := refused.output()
	for _, want := range []string{fmt.Sprintf("checkpoint %d", newest), file, fmt.Sprintf("--from-checkpoint %d", older)} {
		if !strings.Contains(out, want) {
			t.Fatalf("the refusal does not mention %q:\n%s", want, out)
		}
	}
	if len(refused.find("pipeline running")) > 0 {
		t.Fatalf("the run started over a corrupt checkpoint:\n%s", out)
	}

	rollback := w.runToCompletion(t, "--from-checkpoint", fmt.Sprint(older))
	if id, err := rollback.restoredCheckpoint(); err != nil || id != older {
		t.Fatalf("--from-checkpoint %d restored %d (%v)", older, id, err)
	}
	requireSameState(t, "after the rollback", w.finalState(t), ref.finalState(t))
	checkOutputs(w.outputs(t), w.expectedOutputs(t), payloads(ref.outputs(t))).require(t, "outputs")
}

// corruptStateFile flips one byte in the middle of a state file of
// checkpoint id (a table file if there is one) and returns its path as the
// manifest names it. The file is rewritten, not changed in place: Pebble
// hard-links table files between checkpoints, and only this checkpoint's
// copy is to be damaged.
func corruptStateFile(t *testing.T, root string, id uint64) string {
	t.Helper()
	m, err := checkpoint.Read(root, id)
	if err != nil {
		t.Fatal(err)
	}
	var pick checkpoint.FileEntry
	for _, f := range m.Files {
		if !strings.HasPrefix(f.Path, "state/") || f.Size == 0 {
			continue
		}
		if pick.Path == "" || strings.HasSuffix(f.Path, ".sst") && !strings.HasSuffix(pick.Path, ".sst") {
			pick = f
		}
	}
	if pick.Path == "" {
		t.Fatalf("checkpoint %d has no state file to corrupt: %+v", id, m.Files)
	}
	path := filepath.Join(checkpoint.Dir(root, id), filepath.FromSlash(pick.Path))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	tmp := path + ".corrupt"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	t.Logf("flipped byte %d of %s (%d bytes) in checkpoint %d", len(b)/2, pick.Path, len(b), id)
	return pick.Path
}
