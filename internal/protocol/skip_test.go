package protocol

import (
	"maps"
	"reflect"
	"testing"
)

// The worked case of an unaligned restore: key groups 0-1 hold source a up
// to 10, key groups 2-3 up to 14; a resumes at 11 and key groups 2-3 skip
// 11-14.
func TestSkipTableAndResumePoints(t *testing.T) {
	index := map[string]int{"a": 0, "b": 1}
	ranges := []RangePositions{
		{Start: 0, End: 2, Inputs: map[string]uint64{"a": 10, "b": 5}},
		{Start: 2, End: 4, Inputs: map[string]uint64{"a": 14, "b": 5}},
	}
	resume := ResumePoints(map[string]uint64{"a": 14, "b": 5}, ranges)
	if want := map[string]uint64{"a": 11, "b": 6}; !maps.Equal(resume, want) {
		t.Fatalf("resume %v, want %v", resume, want)
	}
	skip := NewSkipTable(4, ranges, index, resume)
	for _, c := range []struct {
		kg, source int
		seq        uint64
		want       bool
	}{
		{0, 0, 11, false}, {1, 0, 14, false}, // their state stops at 10
		{2, 0, 11, true}, {3, 0, 14, true}, // already in the state
		{2, 0, 15, false},                     // past every snapshot
		{2, 1, 6, false},                      // b resumes where every range is
		{9, 0, 12, false}, {-1, 0, 12, false}, // outside the table
	} {
		if got := skip.Skip(c.kg, c.source, c.seq); got != c.want {
			t.Errorf("Skip(kg %d, source %d, seq %d) = %v, want %v", c.kg, c.source, c.seq, got, c.want)
		}
	}
	if skip.MightSkip(0, 15) || !skip.MightSkip(0, 14) {
		t.Error("MightSkip must bound Skip by the highest skipped sequence")
	}
	// Every range at its resume point: nothing to skip, no table.
	if NewSkipTable(4, []RangePositions{{Start: 0, End: 4, Inputs: map[string]uint64{"a": 10}}}, index, map[string]uint64{"a": 11}) != nil {
		t.Error("a table where nothing is skipped")
	}
}

// A new checkpoint taken before the replay passed the skipped records keeps
// them per key group: the task's entry splits where the restored state is
// ahead of its positions, and merges where it is not.
func TestSkipTableSplit(t *testing.T) {
	index := map[string]int{"a": 0}
	ranges := []RangePositions{
		{Start: 0, End: 2, Inputs: map[string]uint64{"a": 10}},
		{Start: 2, End: 4, Inputs: map[string]uint64{"a": 14}},
	}
	skip := NewSkipTable(4, ranges, index, map[string]uint64{"a": 11})
	got := skip.Split(RangePositions{Start: 0, End: 4, Inputs: map[string]uint64{"a": 12}}, index)
	want := []RangePositions{
		{Start: 0, End: 2, Inputs: map[string]uint64{"a": 12}},
		{Start: 2, End: 4, Inputs: map[string]uint64{"a": 14}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("split %v, want %v", got, want)
	}
	if got := skip.Split(RangePositions{Start: 0, End: 4, Inputs: map[string]uint64{"a": 20}}, index); len(got) != 1 || got[0].End != 4 {
		t.Fatalf("past every skipped record the entry stays whole: %v", got)
	}
	var none *SkipTable
	if got := none.Split(want[0], index); !reflect.DeepEqual(got, want[:1]) {
		t.Fatalf("a nil table returns the entry: %v", got)
	}
}
