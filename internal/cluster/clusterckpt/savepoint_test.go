package clusterckpt_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/clusterckpt"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// A savepoint of a cluster checkpoint holds the state of every task of
// every worker, the merged dead-letter lists and the whole cut, and the
// module: restored as a checkpoint of another data dir, its state is the
// cluster checkpoint's.
func TestCreateSavepointHoldsEveryTask(t *testing.T) {
	f := newFixture(t).withCluster(t)
	m1, _ := f.commit(t, 12, 100)
	ref1 := f.reference(t, m1)
	m2, _ := f.commit(t, 6, 180) // changes 6 of the 12 keys of each task
	ref2 := f.reference(t, m2)

	res, err := clusterckpt.CreateSavepoint(testCtx(t), f.cfg, engine.SavepointOptions{Name: "golden", Description: "from the cluster"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sp := res.Savepoint
	if res.From.ID() != 2 || !res.From.Latest || sp.Info.CheckpointID != 2 || sp.Info.Pipeline != pipeline || res.Triggered ||
		sp.Dir != filepath.Join(engine.SavepointRoot(f.cfg), "golden") {
		t.Fatalf("savepoint %+v in %s from cluster checkpoint %d", sp.Info, sp.Dir, res.From.ID())
	}
	if err := checkpoint.VerifySavepoint(engine.SavepointRoot(f.cfg), "golden"); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sp.Manifest.Operators, m2.Checkpoint.Operators) || !reflect.DeepEqual(sp.Manifest.Sources, m2.Checkpoint.Sources) {
		t.Fatalf("the savepoint lost the cut: %+v %+v", sp.Manifest.Operators, sp.Manifest.Sources)
	}
	root, id := adopted(t, engine.SavepointRoot(f.cfg), "golden")
	want := dump(t, ref2, 2)
	if got := dump(t, root, id); len(want) != 12*testTasks || !reflect.DeepEqual(got, want) {
		t.Fatalf("the savepoint's state has %d entries, the cluster checkpoint's %d", len(got), len(want))
	}
	if dl := deadLettersOf(t, root, id); dl != deadLetters {
		t.Errorf("dead letters %s, want %s", dl, deadLetters)
	}
	if left, _ := filepath.Glob(filepath.Join(f.cfg.DataDir, ".cluster-savepoint-*")); len(left) != 0 {
		t.Errorf("temporary directories left in the data dir: %v", left)
	}

	// --checkpoint: an older one, by its id.
	res, err = clusterckpt.CreateSavepoint(testCtx(t), f.cfg, engine.SavepointOptions{Checkpoint: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	root, id = adopted(t, engine.SavepointRoot(f.cfg), res.Savepoint.Info.Name)
	if got, want := dump(t, root, id), dump(t, ref1, 1); res.From.ID() != 1 || !reflect.DeepEqual(got, want) {
		t.Fatalf("savepoint of cluster checkpoint %d: %d entries, want %d of checkpoint 1", res.From.ID(), len(got), len(want))
	}
}

func TestCreateSavepointRefuses(t *testing.T) {
	f := newFixture(t).withCluster(t)
	_, err := clusterckpt.CreateSavepoint(testCtx(t), f.cfg, engine.SavepointOptions{}, nil)
	testutil.WantErr(t, err, clusterckpt.ErrNoCheckpoint, "start the workers")
	f.commit(t, 4, 10)
	_, err = clusterckpt.CreateSavepoint(testCtx(t), f.cfg, engine.SavepointOptions{Checkpoint: 5}, nil)
	testutil.WantErr(t, err, clusterckpt.ErrNotFound, "cluster checkpoint 5", "completed: 1")
	_, err = clusterckpt.CreateSavepoint(testCtx(t), f.cfg, engine.SavepointOptions{Name: "Not/Valid"}, nil)
	testutil.WantErr(t, err, checkpoint.ErrSavepointName)

	if err := os.WriteFile(f.cfg.Operator(testOp).Module, []byte("risk.wasm v2"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = clusterckpt.CreateSavepoint(testCtx(t), f.cfg, engine.SavepointOptions{Name: "changed"}, nil)
	testutil.WantErr(t, err, checkpoint.ErrModuleMissing, `operator "risk"`, "put that module back")
	if names, _ := checkpoint.ListSavepoints(engine.SavepointRoot(f.cfg)); len(names) != 0 {
		t.Fatalf("a refused savepoint left %v", names)
	}
}

// adopted makes savepoint name a checkpoint of a fresh root, as
// `wasmstream run --from-savepoint` does.
func adopted(t *testing.T, spRoot, name string) (string, uint64) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "checkpoints")
	a, err := checkpoint.AdoptSavepoint(spRoot, name, root)
	if err != nil {
		t.Fatal(err)
	}
	return root, a.ID
}

func deadLettersOf(t *testing.T, root string, id uint64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	if err := checkpoint.RestoreState(root, id, dir); err != nil {
		t.Fatal(err)
	}
	st, err := state.Open(dir, state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	dl, _, err := st.GetMeta(engine.DeadLetterMeta(testOp))
	if err != nil {
		t.Fatal(err)
	}
	return string(dl)
}
