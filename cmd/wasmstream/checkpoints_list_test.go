package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine"
)

func TestCheckpointsListText(t *testing.T) {
	dataDir, written := fixtureDataDir(t)
	out := mustRunCheckpoints(t, "list", "--data-dir", dataDir)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("want a header and 3 rows:\n%s", out)
	}
	for _, col := range []string{"ID", "COMPLETED", "DURATION", "ALIGNMENT", "MAX PAUSE", "MODE", "BYTES", "NEW", "POSITIONS", "OPERATORS"} {
		if !strings.Contains(lines[0], col) {
			t.Errorf("header lacks %s: %q", col, lines[0])
		}
	}
	for i, row := range lines[1:] {
		m := written[len(written)-1-i] // newest first
		want := []string{
			m.Completed.UTC().Format(time.RFC3339), humanDuration(m.Metrics.DurationNanos), "2.1ms", "1.2ms", m.Metrics.Mode,
			humanBytes(m.Metrics.BytesTotal), humanBytes(m.Metrics.BytesNew), formatPositions(m.Sources),
			"risk@" + riskModuleSHA256[:12] + " limits@" + limitsModuleSHA256[:12],
		}
		if id := strings.Fields(row)[0]; id != uintString(m.ID) {
			t.Errorf("row %d has id %s, want %d (newest first)", i, id, m.ID)
		}
		for _, w := range want {
			if !strings.Contains(row, w) {
				t.Errorf("row of checkpoint %d lacks %q: %q", m.ID, w, row)
			}
		}
	}
	if !strings.Contains(lines[2], "payments=1500 limits=40") {
		t.Errorf("row of checkpoint 2 lacks its positions: %q", lines[2])
	}
}

// listedRow is the documented JSON shape of one list row.
type listedRow struct {
	ID          uint64            `json:"id"`
	Completed   time.Time         `json:"completed"`
	DurationNs  int64             `json:"duration_ns"`
	AlignmentNs int64             `json:"alignment_ns"`
	MaxPauseNs  int64             `json:"max_pause_ns"`
	Mode        string            `json:"mode"`
	BytesTotal  int64             `json:"bytes_total"`
	BytesNew    int64             `json:"bytes_new"`
	Positions   map[string]uint64 `json:"positions"`
	Operators   []struct {
		Name         string `json:"name"`
		ModuleSHA256 string `json:"module_sha256"`
	} `json:"operators"`
	Error string `json:"error"`
}

func TestCheckpointsListJSON(t *testing.T) {
	dataDir, written := fixtureDataDir(t)
	var rows []listedRow
	if err := json.Unmarshal([]byte(mustRunCheckpoints(t, "list", "--data-dir", dataDir, "--json")), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(written) {
		t.Fatalf("%d rows, want %d", len(rows), len(written))
	}
	for i, r := range rows {
		m := written[len(written)-1-i]
		if r.ID != m.ID || !r.Completed.Equal(m.Completed) || r.DurationNs != m.Metrics.DurationNanos ||
			r.AlignmentNs != m.Metrics.AlignmentNanos || r.MaxPauseNs != m.Metrics.MaxPauseNanos || r.Mode != m.Metrics.Mode ||
			r.BytesTotal != m.Metrics.BytesTotal || r.BytesNew != m.Metrics.BytesNew || r.Error != "" {
			t.Errorf("row %d = %+v, manifest %+v", i, r, m.Metrics)
		}
		if r.Positions["payments"] != m.Sources[0].LastSequence || r.Positions["limits"] != m.Sources[1].LastSequence || len(r.Positions) != 2 {
			t.Errorf("checkpoint %d positions %v", r.ID, r.Positions)
		}
		if len(r.Operators) != 2 || r.Operators[0].Name != "risk" || r.Operators[0].ModuleSHA256 != riskModuleSHA256 {
			t.Errorf("checkpoint %d operators %+v", r.ID, r.Operators)
		}
	}
	if rows[0].BytesNew >= rows[0].BytesTotal {
		t.Errorf("checkpoint 3 shares no bytes with 2: new %d of %d", rows[0].BytesNew, rows[0].BytesTotal)
	}
}

// A checkpoint with a damaged manifest stays in the list with its error.
func TestCheckpointsListShowsUnreadable(t *testing.T) {
	dataDir, _ := fixtureDataDir(t)
	truncate(t, filepath.Join(checkpoint.Dir(engine.CheckpointRootIn(dataDir), 2), "MANIFEST.json"), 40)

	out := mustRunCheckpoints(t, "list", "--data-dir", dataDir)
	if !hasRow(out, "2", "unreadable") {
		t.Errorf("list lacks the row of checkpoint 2:\n%s", out)
	}
	for _, want := range []string{"checkpoint 2 is unreadable:", "corrupt manifest", "1 unreadable checkpoint(s)", "payments=2300"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	var rows []listedRow
	if err := json.Unmarshal([]byte(mustRunCheckpoints(t, "list", "--data-dir", dataDir, "--json")), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[1].ID != 2 || !strings.Contains(rows[1].Error, "corrupt manifest") || rows[0].Error != "" {
		t.Fatalf("JSON rows: %+v", rows)
	}
}

func TestCheckpointsListEmpty(t *testing.T) {
	dataDir := t.TempDir()
	out := mustRunCheckpoints(t, "list", "--data-dir", dataDir)
	if !strings.Contains(out, "no checkpoints in "+engine.CheckpointRootIn(dataDir)) || !strings.Contains(out, "does not exist") {
		t.Fatalf("list of a data dir without checkpoints: %q", out)
	}
	if out := mustRunCheckpoints(t, "list", "--data-dir", dataDir, "--json"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("JSON list of no checkpoints: %q", out)
	}
}

func truncate(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}

func uintString(n uint64) string { return strconv.FormatUint(n, 10) }

// hasRow reports whether a line of out starts with the given fields.
func hasRow(out string, fields ...string) bool {
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= len(fields) && slices.Equal(f[:len(fields)], fields) {
			return true
		}
	}
	return false
}
