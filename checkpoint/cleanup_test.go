package checkpoint

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/wasmstream/wasmstream/internal/checkpointtest"
)

// A crash inside Write (at any step before the rename) or inside Retain
// leaves a directory that RemoveLeftovers deletes; completed checkpoints
// stay and still verify.
func TestRemoveLeftovers(t *testing.T) {
	root := t.TempDir()
	db := openDB(t)
	checkpointtest.PutKeys(t, db, 0, 100)
	writeCheckpoint(t, root, db, 1)
	writeCheckpoint(t, root, db, 2)
	crashed := func(Step) { panic("crash") }
	func() {
		defer func() { _ = recover() }()
		_, _ = WriteWithHook(root, db, validManifest(3), crashed)
	}()
	if err := os.Rename(Dir(root, 1), filepath.Join(root, delPrefix+filepath.Base(Dir(root, 1)))); err != nil {
		t.Fatal(err)
	}
	removed, err := RemoveLeftovers(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 2 {
		t.Fatalf("removed %v, want the temp dir of 3 and the half-removed 1", removed)
	}
	ids, err := List(root)
	if err != nil || !slices.Equal(ids, []uint64{2}) {
		t.Fatalf("List = %v, %v; want [2]", ids, err)
	}
	if err := Verify(root, 2); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 {
		t.Fatalf("root holds %d entries after cleanup, want 1", len(entries))
	}
}

func TestRemoveLeftoversWithoutRoot(t *testing.T) {
	removed, err := RemoveLeftovers(filepath.Join(t.TempDir(), "none"))
	if err != nil || removed != nil {
		t.Fatalf("RemoveLeftovers of a missing root = %v, %v", removed, err)
	}
}
