package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/internal/checkpointtest"
)

// A restored copy opens as a Pebble DB with every key of the checkpoint,
// shares the table files by hard link, and writing to it leaves the
// checkpoint intact.
func TestRestoreState(t *testing.T) {
	root := t.TempDir()
	db := openDB(t)
	checkpointtest.PutKeys(t, db, 0, 500)
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	setKeysNoSync(t, db, 500, 600)
	m := writeCheckpoint(t, root, db, 1)
	dst := filepath.Join(t.TempDir(), "live")
	if err := RestoreState(root, 1, dst); err != nil {
		t.Fatal(err)
	}
	linked := 0
	for _, f := range m.Files {
		if !strings.HasSuffix(f.Path, ".sst") {
			continue
		}
		a, errA := os.Stat(filepath.Join(Dir(root, 1), f.Path))
		b, errB := os.Stat(filepath.Join(dst, strings.TrimPrefix(f.Path, stateDir+"/")))
		if errA != nil || errB != nil || !os.SameFile(a, b) {
			t.Fatalf("%s not hard-linked (%v, %v)", f.Path, errA, errB)
		}
		linked++
	}
	if linked == 0 {
		t.Fatal("no table file in the checkpoint: the test does not exercise links")
	}
	restored, err := pebble.Open(dst, &pebble.Options{Logger: checkpointtest.QuietLogger{}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 600; i++ {
		if _, closer, err := restored.Get(checkpointtest.Key(i)); err != nil {
			t.Fatalf("key %d missing from the restored copy: %v", i, err)
		} else {
			closer.Close()
		}
	}
	if err := restored.Set([]byte("after"), []byte("restore"), pebble.Sync); err != nil {
		t.Fatal(err)
	}
	if err := restored.Compact(context.Background(), checkpointtest.Key(0), []byte("zzz"), true); err != nil {
		t.Fatal(err)
	}
	restored.Close()
	if err := Verify(root, 1); err != nil {
		t.Fatalf("the checkpoint changed under its restored copy: %v", err)
	}
	if err := RestoreState(root, 1, dst); err == nil {
		t.Fatal("RestoreState over an existing directory succeeded")
	}
}
