package engine

import (
	"maps"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/state"
)

// skipTable drops replayed records that a restored snapshot already holds.
// An unaligned snapshot can be ahead of its source's resume position on
// some key groups (the records it processed before its late barriers):
// the source resumes at the lowest position of any task, and each key group
// skips what its old task had already processed. This is the replayable
// form of an unaligned checkpoint's channel state, and it works when the
// new tasks own other key-group ranges than the old ones (rescale).
type skipTable struct {
	maxParallelism int
	upTo           [][]uint64 // [key group][source index]: in the state up to this sequence
	highest        []uint64   // [source index]: no record above it is skipped
}

// newSkipTable returns the table of op's entry in a restored manifest, or
// nil when no record needs skipping (every task at its source's resume point).
func newSkipTable(entry checkpoint.OperatorEntry, sourceIndex map[string]int, resume map[string]uint64) *skipTable {
	st := &skipTable{maxParallelism: entry.MaxParallelism, upTo: make([][]uint64, entry.MaxParallelism),
		highest: make([]uint64, len(sourceIndex))}
	needed := false
	for _, task := range entry.Tasks {
		for kg := task.Start; kg < task.End; kg++ {
			st.upTo[kg] = make([]uint64, len(sourceIndex))
			for name, pos := range task.Inputs {
				i, ok := sourceIndex[name]
				if !ok || pos < resume[name] {
					continue
				}
				st.upTo[kg][i] = pos
				st.highest[i] = max(st.highest[i], pos)
				needed = true
			}
		}
	}
	if !needed {
		return nil
	}
	return st
}

// filter returns recs without those the restored state already holds.
func (s *skipTable) filter(op *operator, recs []inputRecord) []inputRecord {
	kept := recs[:0:0]
	for i := range recs {
		r := &recs[i]
		if r.msg.Sequence <= s.highest[r.source] {
			kg := state.KeyGroup(r.key, s.maxParallelism)
			if r.msg.Sequence <= s.upTo[kg][r.source] {
				op.p.skipped.Add(1)
				continue
			}
		}
		kept = append(kept, *r)
	}
	return kept
}

// split returns a task's manifest entry, split into key-group sub-ranges
// where the restored state still holds records past the task's positions:
// a checkpoint taken while the replay has not yet passed them must keep
// them, or its restore would apply those records twice. Positions are
// per key group, so the sub-ranges need not match tasks. A nil table
// returns the entry as is.
func (s *skipTable) split(e checkpoint.TaskEntry, sourceIndex map[string]int) []checkpoint.TaskEntry {
	if s == nil {
		return []checkpoint.TaskEntry{e}
	}
	var out []checkpoint.TaskEntry
	for kg := e.Start; kg < e.End; kg++ {
		inputs := make(map[string]uint64, len(e.Inputs))
		for name, pos := range e.Inputs {
			if i, ok := sourceIndex[name]; ok && s.upTo[kg] != nil {
				pos = max(pos, s.upTo[kg][i])
			}
			inputs[name] = pos
		}
		if n := len(out); n > 0 && maps.Equal(out[n-1].Inputs, inputs) {
			out[n-1].End = kg + 1
			continue
		}
		sub := e
		sub.KeyGroupRange = checkpoint.KeyGroupRange{Start: kg, End: kg + 1}
		sub.Inputs = inputs
		out = append(out, sub)
	}
	return out
}
