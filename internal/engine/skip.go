package engine

import (
	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/recovery"
	"github.com/wasmstream/wasmstream/internal/protocol"
	"github.com/wasmstream/wasmstream/internal/state"
)

// The skip tables of the protocol core (protocol.SkipTable) applied to the
// engine's records and manifests: a restored unaligned snapshot can be
// ahead of its source's resume point on some key groups, and the replay
// drops what those key groups already hold.

// newSkipTable returns the table of op's entry in a restored manifest, or
// nil when no record needs skipping.
func newSkipTable(entry checkpoint.OperatorEntry, sourceIndex map[string]int, resume map[string]uint64) *protocol.SkipTable {
	return protocol.NewSkipTable(entry.MaxParallelism, recovery.RangePositions(entry.Tasks), sourceIndex, resume)
}

// filterReplayed returns recs without those the restored state holds.
func (t *task) filterReplayed(recs []inputRecord) []inputRecord {
	kept := recs[:0:0]
	for i := range recs {
		r := &recs[i]
		if t.skip.MightSkip(r.source, r.msg.Sequence) &&
			t.skip.Skip(state.KeyGroup(r.key, t.op.cfg.MaxParallelism), r.source, r.msg.Sequence) {
			t.op.p.skipped.Add(1)
			continue
		}
		kept = append(kept, *r)
	}
	return kept
}

// splitEntry returns a task's manifest entry split where the restored
// state still holds records past its positions (protocol.SkipTable.Split).
func splitEntry(skip *protocol.SkipTable, e checkpoint.TaskEntry, sourceIndex map[string]int) []checkpoint.TaskEntry {
	parts := skip.Split(protocol.RangePositions{Start: e.Start, End: e.End, Inputs: e.Inputs}, sourceIndex)
	out := make([]checkpoint.TaskEntry, len(parts))
	for i, part := range parts {
		sub := e
		sub.KeyGroupRange = checkpoint.KeyGroupRange{Start: part.Start, End: part.End}
		sub.Inputs = part.Inputs
		out[i] = sub
	}
	return out
}
