package crashtest

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/crashpoint"
)

// dyingCheckpointSurvives says, for each crash point, whether the
// checkpoint being written when the process dies there is complete on
// disk: from "renamed" on its directory has its final name.
var dyingCheckpointSurvives = map[string]bool{
	"tasks-snapshotted":        false,
	"state-copied":             false,
	"manifest-temp":            false,
	"manifest-written":         false,
	"renamed":                  true,
	"manifest-before-announce": true,
	"after-retain":             true,
}

// crashPointArgs are the flags of every run of the crash-point test: a
// short interval, and retention of one checkpoint so that "after-retain"
// at the second checkpoint has removed the first.
var crashPointArgs = []string{"--checkpoint-interval", "100ms", "--checkpoint-retain", "1"}

// TestCrashPoints kills the process at every named point of the checkpoint
// protocol, at the first and the second checkpoint. What is left must be
// only complete, verifiable checkpoints; the restart restores the last
// completed one and ends with the reference state and outputs.
func TestCrashPoints(t *testing.T) {
	records := 2000
	if testing.Short() {
		records = 500
	}
	inputs := sumRecords("a", 1, records, 50)
	ref := newWorld(t, "crash points reference", sumSpec(t, "a"))
	ref.publish(t, "a", inputs)
	ref.runToCompletion(t, crashPointArgs...)
	want, wantOut := ref.finalState(t), payloads(ref.outputs(t))

	for _, point := range crashpoint.Checkpoint {
		survives, known := dyingCheckpointSurvives[point]
		if !known {
			t.Fatalf("crash point %q is new: add it to dyingCheckpointSurvives", point)
		}
		for _, occ := range []uint64{1, 2} {
			expected := occ // the checkpoint the restart must restore
			if !survives {
				expected = occ - 1
			}
			t.Run(fmt.Sprintf("%s:%d", point, occ), func(t *testing.T) {
				t.Parallel()
				w := newWorld(t, fmt.Sprintf("crash at %s:%d", point, occ), sumSpec(t, "a"))
				w.publish(t, "a", inputs)
				c := w.start(t, []string{fmt.Sprintf("%s=%s:%d", crashpoint.Env, point, occ)}, crashPointArgs...)
				c.wait(t)
				if !c.killedBySIGKILL() {
					t.Fatalf("the run did not die by SIGKILL at %s:%d: %v\n%s", point, occ, c.waitErr, c.logTail(40))
				}
				requireOnlyCompleteCheckpoints(t, w, expected)
				restart := w.runToCompletion(t, crashPointArgs...)
				if id, err := restart.restoredCheckpoint(); err != nil || id != expected {
					t.Fatalf("the restart restored checkpoint %d (%v), want %d", id, err, expected)
				}
				requireSameState(t, "final state", w.finalState(t), want)
				checkOutputs(w.outputs(t), w.expectedOutputs(t), wantOut).require(t, "outputs")
				if left := tempDirs(t, w.root()); len(left) > 0 {
					t.Logf("temporary directories left after the restart: %v", left)
				}
			})
		}
	}
}

// requireOnlyCompleteCheckpoints: every listed checkpoint verifies, and the
// newest is newest (0: none).
func requireOnlyCompleteCheckpoints(t *testing.T, w *world, newest uint64) {
	t.Helper()
	ids := w.checkpoints(t)
	for _, id := range ids {
		if err := checkpoint.Verify(w.root(), id); err != nil {
			t.Fatalf("checkpoint %d is listed but does not verify: %v", id, err)
		}
	}
	if got := w.newestOrZero(t); got != newest {
		t.Fatalf("checkpoints after the crash: %v (temporary: %v); want the newest to be %d", ids, tempDirs(t, w.root()), newest)
	}
}

// tempDirs lists the entries of root that are not checkpoints: a write or a
// removal that a crash interrupted.
func tempDirs(t *testing.T, root string) []string {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return names
}
