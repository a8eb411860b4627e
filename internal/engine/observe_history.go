package engine

import (
	"cmp"
	"slices"
	"time"

	"github.com/wasmstream/wasmstream/checkpoint"
)

// checkpointHistoryLen is how many completed checkpoints the web UI lists:
// enough to see a trend in duration and size, few enough to keep in memory
// (the data dir keeps only checkpoint.retain of them).
const checkpointHistoryLen = 20

// checkpointSummary is one completed checkpoint as /api/pipeline shows it.
type checkpointSummary struct {
	ID          uint64    `json:"id"`
	Created     time.Time `json:"created"`
	Completed   time.Time `json:"completed"`
	DurationMS  float64   `json:"duration_ms"`
	MaxPauseMS  float64   `json:"max_pause_ms"`
	AlignmentMS float64   `json:"alignment_ms"`
	BytesTotal  int64     `json:"bytes_total"`
	BytesNew    int64     `json:"bytes_new"`
	Mode        string    `json:"mode"` // "aligned", "unaligned"; "" in manifests older than the mode
}

func summarizeCheckpoint(m checkpoint.Manifest, completed time.Time) checkpointSummary {
	if !m.Completed.IsZero() {
		completed = m.Completed
	}
	return checkpointSummary{
		ID: m.ID, Created: m.Created, Completed: completed,
		DurationMS:  millis(m.Metrics.DurationNanos),
		MaxPauseMS:  millis(m.Metrics.MaxPauseNanos),
		AlignmentMS: millis(m.Metrics.AlignmentNanos),
		BytesTotal:  m.Metrics.BytesTotal, BytesNew: m.Metrics.BytesNew, Mode: m.Metrics.Mode,
	}
}

func millis(nanos int64) float64 { return float64(nanos) / 1e6 }

// checkpointHistory is the last checkpointHistoryLen completed checkpoints,
// oldest first. It starts from the manifests in the data dir, so a restart
// or an upgrade does not empty the UI's table.
type checkpointHistory struct{ rows []checkpointSummary }

// add adds s unless the history already holds its id (a manifest read
// from the data dir and then reported complete). It builds a new rows
// slice rather than changing the old one: a copy of the history taken
// under the metrics' lock stays valid without it.
func (h *checkpointHistory) add(s checkpointSummary) {
	if slices.ContainsFunc(h.rows, func(r checkpointSummary) bool { return r.ID == s.ID }) {
		return
	}
	rows := append(slices.Clone(h.rows), s)
	slices.SortFunc(rows, func(a, b checkpointSummary) int { return cmp.Compare(a.ID, b.ID) })
	h.rows = rows[max(0, len(rows)-checkpointHistoryLen):]
}

// load adds the completed checkpoints of root. A manifest that cannot be
// read is left out: the history is for looking at, and recovery reports
// damaged checkpoints where it matters.
func (h *checkpointHistory) load(root string) {
	ids, err := checkpoint.List(root) // newest first
	if err != nil {
		return
	}
	for _, id := range ids[:min(len(ids), checkpointHistoryLen)] {
		if m, err := checkpoint.Read(root, id); err == nil {
			h.add(summarizeCheckpoint(m, time.Time{}))
		}
	}
}

// newestFirst returns a copy of the rows, the newest first (the UI's order).
func (h *checkpointHistory) newestFirst() []checkpointSummary {
	rows := slices.Clone(h.rows)
	slices.Reverse(rows)
	return rows
}
