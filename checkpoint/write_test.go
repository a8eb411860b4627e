package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/internal/checkpointtest"
)

// TestWriteHoldsNoSyncWrites is the WAL-flush guarantee: keys committed with
// NoSync just before Write are all in the checkpoint's state.
func TestWriteHoldsNoSyncWrites(t *testing.T) {
	const n = 10000
	db := openDB(t)
	setKeysNoSync(t, db, 0, n)
	root := t.TempDir()
	m := writeCheckpoint(t, root, db, 1)

	snap, err := pebble.Open(StateDir(root, m.ID), &pebble.Options{ReadOnly: true, Logger: checkpointtest.QuietLogger{}})
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	missing := 0
	for i := 0; i < n; i++ {
		_, closer, err := snap.Get(checkpointtest.Key(i))
		if errors.Is(err, pebble.ErrNotFound) {
			missing++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		closer.Close()
	}
	if missing > 0 {
		t.Fatalf("%d of %d NoSync keys missing from the checkpoint", missing, n)
	}
}

func TestWriteFillsManifest(t *testing.T) {
	db := openDB(t)
	checkpointtest.PutKeys(t, db, 0, 100)
	root := t.TempDir()
	m := writeCheckpoint(t, root, db, 4)
	if m.FormatVersion != ManifestFormatVersion || len(m.Files) == 0 || m.Completed.IsZero() {
		t.Fatalf("manifest not filled: %+v", m)
	}
	var total int64
	for _, f := range m.Files {
		total += f.Size
	}
	if m.Metrics.BytesTotal != total || m.Metrics.BytesNew != total {
		t.Fatalf("bytes total %d new %d, want both %d for the first checkpoint",
			m.Metrics.BytesTotal, m.Metrics.BytesNew, total)
	}
	read, err := Read(root, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(read, m) {
		t.Fatalf("Read differs from Write's result:\n got %+v\nwant %+v", read, m)
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 || entries[0].Name() != filepath.Base(Dir(root, 4)) {
		t.Fatalf("root holds %v, want only the checkpoint", entries)
	}
}

// TestWriteBytesNew checks that files shared with the previous checkpoint
// (hard-linked SSTs) do not count as new.
func TestWriteBytesNew(t *testing.T) {
	db := openDB(t)
	checkpointtest.PutKeys(t, db, 0, 1000)
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	writeCheckpoint(t, root, db, 1)
	checkpointtest.PutKeys(t, db, 1000, 1010)
	m := writeCheckpoint(t, root, db, 2)
	if m.Metrics.BytesNew >= m.Metrics.BytesTotal {
		t.Fatalf("bytes new %d, total %d: the unchanged SST counted as new",
			m.Metrics.BytesNew, m.Metrics.BytesTotal)
	}
}

func TestWriteRefusesExistingID(t *testing.T) {
	db := openDB(t)
	root := t.TempDir()
	writeCheckpoint(t, root, db, 3)
	m := validManifest(3)
	m.Files = nil
	if _, err := Write(root, db, m); !errors.Is(err, ErrCheckpointExists) {
		t.Fatalf("got %v, want ErrCheckpointExists", err)
	}
}

func TestWriteInvalidManifestLeavesNothing(t *testing.T) {
	db := openDB(t)
	root := t.TempDir()
	m := validManifest(2)
	m.Operators[0].MaxParallelism = 0
	if _, err := Write(root, db, m); !errors.Is(err, ErrCorruptManifest) {
		t.Fatalf("got %v, want ErrCorruptManifest", err)
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 0 {
		t.Fatalf("failed Write left %v", entries)
	}
}

// Unchanged table files are hard links shared with the previous checkpoint;
// their hashes are reused, and the reused hashes are the real ones.
func TestWriteReusesHashesOfLinkedFiles(t *testing.T) {
	root := t.TempDir()
	db := openDB(t)
	checkpointtest.PutKeys(t, db, 0, 2000)
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	first := writeCheckpoint(t, root, db, 1)
	checkpointtest.PutKeys(t, db, 2000, 2100)
	second := writeCheckpoint(t, root, db, 2)
	shared := 0
	for _, f := range second.Files {
		for _, g := range first.Files {
			if f.Path == g.Path && strings.HasSuffix(f.Path, ".sst") {
				shared++
				_, sum, err := hashFile(filepath.Join(Dir(root, 2), filepath.FromSlash(f.Path)))
				if err != nil || sum != f.SHA256 {
					t.Fatalf("%s: recorded %s, content hashes to %s (%v)", f.Path, f.SHA256, sum, err)
				}
			}
		}
	}
	if shared == 0 {
		t.Fatal("no table file shared between the checkpoints: the test does not exercise reuse")
	}
	if err := Verify(root, 2); err != nil {
		t.Fatal(err)
	}
}

// Damage to a table file shared by two checkpoints is detected in both:
// the second recorded the hash of the first, not of the damaged content.
func TestVerifyDetectsDamageToSharedFile(t *testing.T) {
	root := t.TempDir()
	db := openDB(t)
	checkpointtest.PutKeys(t, db, 0, 2000)
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	first := writeCheckpoint(t, root, db, 1)
	var sst string
	for _, f := range first.Files {
		if strings.HasSuffix(f.Path, ".sst") {
			sst = f.Path
		}
	}
	if sst == "" {
		t.Fatal("no table file in the checkpoint")
	}
	path := filepath.Join(Dir(root, 1), filepath.FromSlash(sst))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{data[len(data)/2] ^ 0x10}, int64(len(data)/2)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	writeCheckpoint(t, root, db, 2)
	for _, id := range []uint64{1, 2} {
		if err := Verify(root, id); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("checkpoint %d: Verify = %v, want ErrCorrupt", id, err)
		}
	}
}
