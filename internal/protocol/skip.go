package protocol

import "maps"

// RangePositions says how far a key-group range's state holds each source:
// Inputs[source name] is the last sequence whose records are in it.
type RangePositions struct {
	Start, End int // key groups [Start, End)
	Inputs     map[string]uint64
}

// SkipTable is the replayable form of an unaligned checkpoint's channel
// state. Such a snapshot can be ahead of its source's resume position on
// some key groups (the records a task processed before its late or
// overtaken barriers): the source resumes at the lowest position of any
// range, and each key group skips what its restored state already holds.
// Positions are per key group, so this holds when the new tasks own other
// ranges than the old ones (rescale).
type SkipTable struct {
	upTo    [][]uint64 // [key group][source index]: in the state up to this sequence
	highest []uint64   // [source index]: no record above it is skipped
}

// NewSkipTable returns the table of an operator's restored ranges, or nil
// when no record needs skipping (every range at its source's resume point).
// sourceIndex numbers the sources; resume[name] is where a source resumes.
func NewSkipTable(maxParallelism int, ranges []RangePositions, sourceIndex map[string]int, resume map[string]uint64) *SkipTable {
	st := &SkipTable{upTo: make([][]uint64, maxParallelism), highest: make([]uint64, len(sourceIndex))}
	needed := false
	for _, r := range ranges {
		for kg := r.Start; kg < r.End && kg < maxParallelism; kg++ {
			st.upTo[kg] = make([]uint64, len(sourceIndex))
			for name, pos := range r.Inputs {
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

// MightSkip is the cheap test before Skip: false means the record of
// source at seq is not skipped on any key group.
func (s *SkipTable) MightSkip(source int, seq uint64) bool {
	return s != nil && source < len(s.highest) && seq <= s.highest[source]
}

// Skip reports whether the record of source at seq in keyGroup is already
// in the restored state.
func (s *SkipTable) Skip(keyGroup, source int, seq uint64) bool {
	if !s.MightSkip(source, seq) || keyGroup < 0 || keyGroup >= len(s.upTo) || s.upTo[keyGroup] == nil {
		return false
	}
	return seq <= s.upTo[keyGroup][source]
}

// Split returns a range's positions for a new checkpoint, split into
// key-group sub-ranges where the restored state still holds records past
// them: a checkpoint taken before the replay passed those records must
// keep them, or its restore would apply them twice. A nil table returns
// the range as is.
func (s *SkipTable) Split(r RangePositions, sourceIndex map[string]int) []RangePositions {
	if s == nil {
		return []RangePositions{r}
	}
	var out []RangePositions
	for kg := r.Start; kg < r.End; kg++ {
		inputs := make(map[string]uint64, len(r.Inputs))
		for name, pos := range r.Inputs {
			if i, ok := sourceIndex[name]; ok && kg < len(s.upTo) && s.upTo[kg] != nil {
				pos = max(pos, s.upTo[kg][i])
			}
			inputs[name] = pos
		}
		if n := len(out); n > 0 && maps.Equal(out[n-1].Inputs, inputs) {
			out[n-1].End = kg + 1
			continue
		}
		out = append(out, RangePositions{Start: kg, End: kg + 1, Inputs: inputs})
	}
	return out
}

// ResumePoints returns where each source resumes after a restore: after
// the lowest position any range holds for it, and never after the
// source's own barrier position (sources[name]).
func ResumePoints(sources map[string]uint64, ranges []RangePositions) map[string]uint64 {
	low := maps.Clone(sources)
	for _, r := range ranges {
		for name, pos := range r.Inputs {
			if cur, ok := low[name]; ok {
				low[name] = min(cur, pos)
			}
		}
	}
	resume := make(map[string]uint64, len(low))
	for name, pos := range low {
		resume[name] = pos + 1
	}
	return resume
}
