package engine

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/checkpointtest"
)

func historyIDs(h *checkpointHistory) []uint64 {
	var ids []uint64
	for _, r := range h.newestFirst() {
		ids = append(ids, r.ID)
	}
	return ids
}

// TestCheckpointHistoryKeepsTheNewest: the history lists each id once,
// newest first, and only the last checkpointHistoryLen; a copy taken
// before an add stays as it was.
func TestCheckpointHistoryKeepsTheNewest(t *testing.T) {
	var h checkpointHistory
	h.add(checkpointSummary{ID: 2})
	h.add(checkpointSummary{ID: 1})
	h.add(checkpointSummary{ID: 2})
	if got := historyIDs(&h); !slices.Equal(got, []uint64{2, 1}) {
		t.Fatalf("history %v, want [2 1]", got)
	}
	before := h
	for id := uint64(3); id <= checkpointHistoryLen+5; id++ {
		h.add(checkpointSummary{ID: id})
	}
	got := historyIDs(&h)
	if len(got) != checkpointHistoryLen || got[0] != checkpointHistoryLen+5 || got[len(got)-1] != 6 {
		t.Errorf("history after %d checkpoints: %v, want the last %d, newest first", checkpointHistoryLen+5, got, checkpointHistoryLen)
	}
	if ids := historyIDs(&before); !slices.Equal(ids, []uint64{2, 1}) {
		t.Errorf("a copy taken before changed to %v", ids)
	}
}

// TestCheckpointHistoryLoadsTheDataDir: the history starts from the
// manifests written under the data dir, with their measurements.
func TestCheckpointHistoryLoadsTheDataDir(t *testing.T) {
	dir := t.TempDir()
	db, err := pebble.Open(filepath.Join(dir, "state"), &pebble.Options{Logger: checkpointtest.QuietLogger{}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	root := filepath.Join(dir, "checkpoints")
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for id := uint64(1); id <= 3; id++ {
		m := checkpoint.Manifest{ID: id, Created: created, Metrics: checkpoint.Metrics{DurationNanos: int64(id) * 1e6, Mode: "aligned"}}
		if _, err := checkpoint.Write(root, db, m); err != nil {
			t.Fatal(err)
		}
	}
	var h checkpointHistory
	h.load(root)
	rows := h.newestFirst()
	if len(rows) != 3 || rows[0].ID != 3 || rows[0].DurationMS != 3 || rows[0].Mode != "aligned" || !rows[0].Created.Equal(created) || rows[0].Completed.IsZero() {
		t.Errorf("history loaded from the data dir: %+v", rows)
	}
}
