package checkpoint

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/internal/checkpointtest"
)

// mustMarshal encodes m without validation, as a broken writer would.
func mustMarshal(t *testing.T, m Manifest) []byte {
	t.Helper()
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// openDB opens a fresh Pebble DB in a temp dir, closed at test end.
func openDB(t *testing.T) *pebble.DB {
	t.Helper()
	db, err := pebble.Open(filepath.Join(t.TempDir(), "db"), &pebble.Options{Logger: checkpointtest.QuietLogger{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// setKeysNoSync writes keys [from, to) one NoSync commit each: the pattern
// that leaves the WAL tail in memory at checkpoint time (a single large batch
// tends to reach the file before Checkpoint copies it, hiding the bug).
func setKeysNoSync(t *testing.T, db *pebble.DB, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		if err := db.Set(checkpointtest.Key(i), fmt.Appendf(nil, "value-%d", i), pebble.NoSync); err != nil {
			t.Fatal(err)
		}
	}
}

// writeCheckpoint writes checkpoint id of db under root with a valid
// caller-side manifest.
func writeCheckpoint(t *testing.T, root string, db *pebble.DB, id uint64) Manifest {
	t.Helper()
	m := validManifest(id)
	m.Files, m.Metrics.BytesTotal, m.Metrics.BytesNew = nil, 0, 0
	m.FormatVersion = 0
	got, err := Write(root, db, m)
	if err != nil {
		t.Fatal(err)
	}
	return got
}
