package engine

import (
	"testing"

	"github.com/wasmstream/wasmstream/internal/exchange"
)

// alignStep is one input of a markerAlignment script: a barrier request, or a marker read on
// a key group's subject; want is the barrier it must hand out (0: none).
type alignStep struct {
	request  *barrierRequest
	marker   *exchange.Marker
	keyGroup int
	want     uint64
}

func req(id uint64, final bool) *barrierRequest { return &barrierRequest{ID: id, Final: final} }

func mark(id, generation uint64, task, tasks uint32) *exchange.Marker {
	return &exchange.Marker{Checkpoint: id, Generation: generation, Task: task, Tasks: tasks}
}

// The exchange source's barrier decisions (FORMAT.md §5.2), for a run of generation 7 reading
// an edge whose consumer has 2 key groups.
func TestMarkerAlignment(t *testing.T) {
	const gen = 7
	for _, tc := range []struct {
		name  string
		steps []alignStep
	}{
		{"the barrier waits for the first marker of its checkpoint", []alignStep{
			{request: req(1, false)},
			{marker: mark(1, gen, 1, 2), want: 1},
			{marker: mark(1, gen, 0, 2)},
		}},
		{"a marker read before the request lets it in at once", []alignStep{
			{marker: mark(3, gen, 0, 1)},
			{request: req(3, false), want: 3},
		}},
		{"a newer marker lets an older request in", []alignStep{
			{marker: mark(4, gen, 0, 1)},
			{request: req(3, false), want: 3},
		}},
		{"markers of another generation are ignored", []alignStep{
			{request: req(2, false)},
			{marker: mark(2, gen-1, 0, 1)},
			{marker: mark(5, gen+1, 0, 1)},
			{marker: mark(2, gen, 0, 1), want: 2},
		}},
		{"markers of older checkpoints and repeats are ignored", []alignStep{
			{marker: mark(2, gen, 0, 1)},
			{request: req(3, false)},
			{marker: mark(2, gen, 0, 1)},
			{marker: mark(1, gen, 0, 1)},
			{marker: mark(3, gen, 0, 1), want: 3},
			{marker: mark(3, gen, 0, 1)},
		}},
		{"a stale marker after a newer one does not go back", []alignStep{
			{marker: mark(5, gen, 0, 1)},
			{marker: mark(4, gen, 0, 1)},
			{request: req(5, false), want: 5},
		}},
		{"the final barrier waits for every copy of every producer task's marker", []alignStep{
			{request: req(6, true)},
			{marker: mark(6, gen, 0, 2), keyGroup: 0},
			{marker: mark(6, gen, 1, 2), keyGroup: 0},
			{marker: mark(6, gen, 0, 2), keyGroup: 1},
			{marker: mark(6, gen, 0, 2), keyGroup: 1}, // a repeat: still three copies of four
			{marker: mark(6, gen-1, 1, 2), keyGroup: 1},
			{marker: mark(6, gen, 1, 2), keyGroup: 1, want: 6},
		}},
		{"a final request after every marker copy goes in at once", []alignStep{
			{marker: mark(2, gen, 0, 1), keyGroup: 0},
			{marker: mark(2, gen, 0, 1), keyGroup: 1},
			{request: req(2, true), want: 2},
		}},
		{"copies of an older checkpoint do not count for the final one", []alignStep{
			{marker: mark(1, gen, 0, 1), keyGroup: 0},
			{marker: mark(1, gen, 0, 1), keyGroup: 1},
			{request: req(2, true)},
			{marker: mark(2, gen, 0, 1), keyGroup: 1},
			{marker: mark(2, gen, 0, 1), keyGroup: 0, want: 2},
		}},
		{"a barrier goes in once", []alignStep{
			{request: req(1, false)},
			{marker: mark(1, gen, 0, 1), want: 1},
			{marker: mark(2, gen, 0, 1)},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newMarkerAlignment(gen, 2)
			for i, st := range tc.steps {
				var got barrierRequest
				var ok bool
				if st.request != nil {
					got, ok = a.request(*st.request)
				} else {
					got, ok = a.marker(*st.marker, st.keyGroup)
				}
				switch {
				case st.want == 0 && ok:
					t.Fatalf("step %d: injected barrier %d, want none yet", i, got.ID)
				case st.want != 0 && (!ok || got.ID != st.want):
					t.Fatalf("step %d: injected %d (%v), want barrier %d", i, got.ID, ok, st.want)
				}
			}
		})
	}
}
