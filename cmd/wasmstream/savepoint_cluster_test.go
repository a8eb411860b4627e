package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine"
)

// TestClusterSavepointRestoresIntoRun is phase 1 acceptance 6 (design §7):
// a savepoint of a cluster checkpoint, exported and given to `wasmstream
// run --from-savepoint` of the pipeline without its cluster block (on the
// same streams, a fresh data dir), restores exactly the state the cluster
// checkpoint holds, and the run resumes at its positions: after more
// records, its state is the one-process pipeline's after the same records.
func TestClusterSavepointRestoresIntoRun(t *testing.T) {
	c := newClusterSums(t)
	out := mustRunSavepoint(t, "create", c.clusterFile, "golden", "--description", "from the cluster")
	wantContains(t, "create", out, "savepoint golden created from cluster checkpoint 1 (the latest; generation",
		"workers w1, w2; every task restored from "+c.record.Manifest, formatPositions(c.local.Sources),
		filepath.Join(c.clusterCfg.DataDir, "savepoints", "golden"))
	var created createdSavepointJSON
	if err := json.Unmarshal([]byte(mustRunSavepoint(t, "create", c.clusterFile, "--name", "again", "--json")), &created); err != nil ||
		created.Cluster == nil || created.Cluster.Checkpoint != 1 || created.Cluster.Manifest != c.record.Manifest || created.CheckpointID != 1 {
		t.Fatalf("create --json: %+v %v", created, err)
	}
	archive := filepath.Join(t.TempDir(), "golden.tar")
	mustRunSavepoint(t, "export", c.clusterFile, "golden", archive)

	want := dumpOf(t, engine.CheckpointRoot(c.plainCfg), c.local.ID)
	if len(want) == 0 {
		t.Fatal("the first run left no state")
	}
	c.publish(t, 300, 420)
	mustExecCLI(t, "run", c.restoreFile, "--from-savepoint", archive, "--stop-when-idle", "500ms", "--log-level", "warn")
	restoreRoot := engine.CheckpointRoot(mustLoad(t, c.restoreFile))
	if got := dumpOf(t, restoreRoot, 1); !reflect.DeepEqual(got, want) {
		t.Fatalf("the restored checkpoint holds %d state entries, the cluster checkpoint %d", len(got), len(want))
	}

	// Both continue from the same cut over the same 120 records.
	mustExecCLI(t, "run", c.plainFile, "--stop-when-idle", "500ms", "--log-level", "warn")
	plain, restored := newest(t, engine.CheckpointRoot(c.plainCfg)), newest(t, restoreRoot)
	if !reflect.DeepEqual(plain.Sources, restored.Sources) {
		t.Fatalf("positions after the restore's run %v, after the one-process run %v", restored.Sources, plain.Sources)
	}
	if got, want := dumpOf(t, restoreRoot, restored.ID), dumpOf(t, engine.CheckpointRoot(c.plainCfg), plain.ID); !reflect.DeepEqual(got, want) {
		t.Fatalf("after 120 more records the restored pipeline's state (%d entries) differs from the one-process pipeline's (%d)", len(got), len(want))
	}
}

func dumpOf(t *testing.T, root string, id uint64) []engine.StateEntry {
	t.Helper()
	entries, err := engine.DumpCheckpointState(root, id)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

func newest(t *testing.T, root string) checkpoint.Manifest {
	t.Helper()
	ids, err := checkpoint.List(root)
	if err != nil || len(ids) == 0 {
		t.Fatalf("checkpoints in %s: %v %v", root, ids, err)
	}
	m, err := checkpoint.Read(root, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	return m
}
