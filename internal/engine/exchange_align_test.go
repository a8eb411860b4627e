package engine

import (
	"testing"

	"github.com/wasmstream/wasmstream/internal/exchange"
)

// alignStep is one input of a markerAlignment script: a barrier request, or a marker read on
// a key group's subject; want is the barrier it must hand out (0: none).
type alignStep struct {
	request    *barrierRequest
	generation uint64 // of the coordinator asking for request; 0: the run's
	marker     *exchange.Marker
	keyGroup   int
	want       uint64
}

func req(id uint64, final bool) *barrierRequest { return &barrierRequest{ID: id, Final: final} }

func mark(id, generation uint64, task, tasks uint32) *exchange.Marker {
	return &exchange.Marker{Checkpoint: id, Generation: generation, Task: task, Tasks: tasks}
}

// The exchange source's barrier decisions (FORMAT.md §5.2), for a run of generation 7 reading
// an edge whose consumer has 2 key groups; follow: the run is a cluster part, which follows its
// newest coordinator's generation.
func TestMarkerAlignment(t *testing.T) {
	const gen = 7
	for _, tc := range []struct {
		name   string
		follow bool
		steps  []alignStep
	}{
		{"a cluster part takes a newer coordinator's marker before its request", true, []alignStep{
			{marker: mark(3, gen+2, 0, 1)},
			{request: req(3, false), generation: gen + 2, want: 3},
		}},
		{"a newer coordinator's request forgets the older one's markers", true, []alignStep{
			{marker: mark(4, gen, 0, 1)},
			{request: req(4, false), generation: gen + 1},
			{marker: mark(4, gen, 0, 1)},
			{marker: mark(4, gen+1, 0, 1), want: 4},
		}},
		{"a cluster part ignores an older coordinator's markers once it saw a newer one's", true, []alignStep{
			{marker: mark(2, gen+1, 0, 1)},
			{request: req(3, false), generation: gen + 1},
			{marker: mark(3, gen, 0, 1)},
			{marker: mark(9, gen, 0, 1)},
			{marker: mark(3, gen+1, 0, 1), want: 3},
		}},
		{"an older coordinator's late request goes in after a newer one's marker", true, []alignStep{
			{marker: mark(5, gen+1, 0, 1)},
			{request: req(5, false), generation: gen, want: 5},
			{request: req(6, false), generation: gen + 1},
			{marker: mark(6, gen+1, 0, 1), want: 6},
		}},
		{"the barrier waits for the first marker of its checkpoint", false, []alignStep{
			{request: req(1, false)},
			{marker: mark(1, gen, 1, 2), want: 1},
			{marker: mark(1, gen, 0, 2)},
		}},
		{"a marker read before the request lets it in at once", false, []alignStep{
			{marker: mark(3, gen, 0, 1)},
			{request: req(3, false), want: 3},
		}},
		{"a newer marker lets an older request in", false, []alignStep{
			{marker: mark(4, gen, 0, 1)},
			{request: req(3, false), want: 3},
		}},
		{"markers of another generation are ignored", false, []alignStep{
			{request: req(2, false)},
			{marker: mark(2, gen-1, 0, 1)},
			{marker: mark(5, gen+1, 0, 1)},
			{marker: mark(2, gen, 0, 1), want: 2},
		}},
		{"markers of older checkpoints and repeats are ignored", false, []alignStep{
			{marker: mark(2, gen, 0, 1)},
			{request: req(3, false)},
			{marker: mark(2, gen, 0, 1)},
			{marker: mark(1, gen, 0, 1)},
			{marker: mark(3, gen, 0, 1), want: 3},
			{marker: mark(3, gen, 0, 1)},
		}},
		{"a stale marker after a newer one does not go back", false, []alignStep{
			{marker: mark(5, gen, 0, 1)},
			{marker: mark(4, gen, 0, 1)},
			{request: req(5, false), want: 5},
		}},
		{"the final barrier waits for every copy of every producer task's marker", false, []alignStep{
			{request: req(6, true)},
			{marker: mark(6, gen, 0, 2), keyGroup: 0},
			{marker: mark(6, gen, 1, 2), keyGroup: 0},
			{marker: mark(6, gen, 0, 2), keyGroup: 1},
			{marker: mark(6, gen, 0, 2), keyGroup: 1}, // a repeat: still three copies of four
			{marker: mark(6, gen-1, 1, 2), keyGroup: 1},
			{marker: mark(6, gen, 1, 2), keyGroup: 1, want: 6},
		}},
		{"a final request after every marker copy goes in at once", false, []alignStep{
			{marker: mark(2, gen, 0, 1), keyGroup: 0},
			{marker: mark(2, gen, 0, 1), keyGroup: 1},
			{request: req(2, true), want: 2},
		}},
		{"copies of an older checkpoint do not count for the final one", false, []alignStep{
			{marker: mark(1, gen, 0, 1), keyGroup: 0},
			{marker: mark(1, gen, 0, 1), keyGroup: 1},
			{request: req(2, true)},
			{marker: mark(2, gen, 0, 1), keyGroup: 1},
			{marker: mark(2, gen, 0, 1), keyGroup: 0, want: 2},
		}},
		{"a barrier goes in once", false, []alignStep{
			{request: req(1, false)},
			{marker: mark(1, gen, 0, 1), want: 1},
			{marker: mark(2, gen, 0, 1)},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newMarkerAlignment(gen, 2, tc.follow)
			for i, st := range tc.steps {
				var got barrierRequest
				var ok bool
				if st.request != nil {
					asker := st.generation
					if asker == 0 {
						asker = gen
					}
					got, ok = a.request(*st.request, asker)
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
