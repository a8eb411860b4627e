package checkpoint

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/internal/checkpointtest"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// adopted checks that checkpoint a.ID under root verifies and holds the
// savepoint's checkpoint: the same files, positions and operators.
func adopted(t *testing.T, root string, a Adoption, sp Savepoint) {
	t.Helper()
	if err := Verify(root, a.ID); err != nil {
		t.Fatalf("adopted checkpoint %d: %v", a.ID, err)
	}
	m, err := Read(root, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := sp.Manifest
	want.ID, want.Checksum = a.ID, m.Checksum
	if !reflect.DeepEqual(m, want) || !reflect.DeepEqual(a.Manifest, m) {
		t.Fatalf("adopted manifest:\n got %+v\nwant %+v", m, want)
	}
	for _, f := range m.Files {
		got, _ := os.ReadFile(filepath.Join(Dir(root, a.ID), f.Path))
		orig, _ := os.ReadFile(filepath.Join(sp.Dir, f.Path))
		if !bytes.Equal(got, orig) {
			t.Errorf("%s differs from the savepoint's", f.Path)
		}
	}
}

func TestAdoptSavepointKeepsAFreeID(t *testing.T) {
	f := newSPFixture(t)
	f.checkpoint(t, 6)
	sp := f.savepoint(t, 7, "x")
	fresh := filepath.Join(t.TempDir(), "checkpoints")
	a, err := AdoptSavepoint(f.SavepointRoot, "x", fresh)
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != 7 || a.Renumbered || a.Reused || a.Info.Name != "x" {
		t.Fatalf("adoption %+v, want checkpoint 7 as it is", a)
	}
	adopted(t, fresh, a, sp)
	noTemporaries(t, fresh)
	// Its id is free although older and newer ones exist: it keeps it.
	if err := os.RemoveAll(Dir(f.CheckpointRoot, 7)); err != nil {
		t.Fatal(err)
	}
	writeModuleCheckpoint(t, f.CheckpointRoot, f.DB, 8, checkpointtest.Module)
	if a, err = AdoptSavepoint(f.SavepointRoot, "x", f.CheckpointRoot); err != nil || a.ID != 7 || a.Renumbered {
		t.Fatalf("adoption %+v, %v; want checkpoint 7 between 6 and 8", a, err)
	}
}

func TestAdoptSavepointReusesTheSameCheckpoint(t *testing.T) {
	f := newSPFixture(t)
	sp := f.savepoint(t, 1, "x")
	before := dirDigest(t, f.CheckpointRoot)
	a, err := AdoptSavepoint(f.SavepointRoot, "x", f.CheckpointRoot)
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != 1 || !a.Reused || a.Renumbered {
		t.Fatalf("adoption %+v, want checkpoint 1 reused", a)
	}
	adopted(t, f.CheckpointRoot, a, sp)
	sameDirDigest(t, "checkpoints", before, dirDigest(t, f.CheckpointRoot))
	noTemporaries(t, f.CheckpointRoot)
}

func TestAdoptSavepointRenumbersOverATakenID(t *testing.T) {
	f := newSPFixture(t)
	sp := f.savepoint(t, 2, "x")
	// Another pipeline's root, whose checkpoints 1..3 are other cuts; its
	// checkpoint 2 is damaged, and still must not be touched.
	other := newSPFixture(t)
	for id := uint64(1); id <= 3; id++ {
		other.checkpoint(t, id)
		other.checkpoint(t, id+10) // more state per checkpoint than f's
		if err := os.RemoveAll(Dir(other.CheckpointRoot, id+10)); err != nil {
			t.Fatal(err)
		}
	}
	m2, _ := Read(other.CheckpointRoot, 2)
	flipByte(t, filepath.Join(Dir(other.CheckpointRoot, 2), largest(m2.Files).Path), 1)
	before := dirDigest(t, other.CheckpointRoot)
	a, err := AdoptSavepoint(f.SavepointRoot, "x", other.CheckpointRoot)
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != 4 || !a.Renumbered || a.Reused {
		t.Fatalf("adoption %+v, want checkpoint 4 (newest + 1), renumbered", a)
	}
	adopted(t, other.CheckpointRoot, a, sp)
	after := dirDigest(t, other.CheckpointRoot)
	for p := range after {
		if strings.HasPrefix(p, filepath.Base(Dir(other.CheckpointRoot, 4))+"/") {
			delete(after, p)
		}
	}
	sameDirDigest(t, "the other checkpoints", before, after)
}

func TestAdoptSavepointRefusesDamage(t *testing.T) {
	f := newSPFixture(t)
	sp := f.savepoint(t, 1, "x")
	bad := largest(sp.Manifest.Files).Path
	flipByte(t, filepath.Join(sp.Dir, bad), 5)
	fresh := filepath.Join(t.TempDir(), "checkpoints")
	_, err := AdoptSavepoint(f.SavepointRoot, "x", fresh)
	testutil.WantErr(t, err, ErrCorrupt, `savepoint "x"`, bad, "no checkpoint was added")
	if ids, _ := List(fresh); len(ids) != 0 {
		t.Fatalf("checkpoints after a refusal: %v", ids)
	}
	noTemporaries(t, fresh)
}
