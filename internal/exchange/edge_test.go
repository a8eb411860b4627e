package exchange

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

var testEdge = Edge{Pipeline: "fraud", Producer: "enrich", Output: "out", Consumer: "score"}

// The names are part of the format (FORMAT.md §2): a change here strands the streams that
// running pipelines created. These are the expected values, not a copy of the code: the hash
// was computed apart, with Python's hashlib over the same length-prefixed parts.
func TestEdgeNames(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{testEdge.Token(), "enrich_score_1564d3cf"},
		{testEdge.StreamName(), "WS_X_fraud_enrich_score_1564d3cf"},
		{testEdge.StreamSubject(), "wasmstream.x.fraud.enrich_score_1564d3cf.*"},
		{testEdge.Subject(0), "wasmstream.x.fraud.enrich_score_1564d3cf.0"},
		{testEdge.Subject(127), "wasmstream.x.fraud.enrich_score_1564d3cf.127"},
		{testEdge.String(), "enrich.out -> score"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// Edges that differ in any part have different streams and subjects, also when their names
// join alike ("a_b" + "c" and "a" + "b_c") or only the output differs.
func TestEdgesStayApart(t *testing.T) {
	edges := []Edge{
		testEdge,
		{Pipeline: "fraud", Producer: "enrich", Output: "side", Consumer: "score"},
		{Pipeline: "fraud2", Producer: "enrich", Output: "out", Consumer: "score"},
		{Pipeline: "fraud", Producer: "enrich_score", Output: "out", Consumer: "x"},
		{Pipeline: "fraud", Producer: "enrich", Output: "out", Consumer: "score_x"},
		{Pipeline: "fraud", Producer: "enrich", Output: "out.v2", Consumer: "score"},
	}
	seen := map[string]Edge{}
	for _, e := range edges {
		if err := e.Validate(); err != nil {
			t.Fatalf("%v: %v", e, err)
		}
		for _, name := range []string{e.StreamName(), e.StreamSubject()} {
			if other, dup := seen[name]; dup {
				t.Errorf("%v and %v share %q", e, other, name)
			}
			seen[name] = e
		}
	}
}

func TestEdgeValidate(t *testing.T) {
	long := strings.Repeat("p", 240)
	for _, e := range []Edge{
		{Pipeline: "", Producer: "a", Output: "o", Consumer: "b"},
		{Pipeline: "p.q", Producer: "a", Output: "o", Consumer: "b"},
		{Pipeline: "p", Producer: "a b", Output: "o", Consumer: "b"},
		{Pipeline: "p", Producer: "a", Output: "o", Consumer: "b*"},
		{Pipeline: "p", Producer: "a", Output: "", Consumer: "b"},
		{Pipeline: "p", Producer: "a", Output: strings.Repeat("o", 256), Consumer: "b"},
		{Pipeline: long, Producer: "a", Output: "o", Consumer: "b"},
	} {
		if err := e.Validate(); !errors.Is(err, ErrInvalidEdge) {
			t.Errorf("%+v: Validate = %v, want ErrInvalidEdge", e, err)
		}
	}
}

func TestKeyGroupOf(t *testing.T) {
	for _, tc := range []struct {
		subject string
		kg      int
		ok      bool
	}{
		{testEdge.Subject(0), 0, true},
		{testEdge.Subject(127), 127, true},
		{testEdge.Subject(128), 0, false},
		{testEdge.StreamSubject(), 0, false},
		{strings.TrimSuffix(testEdge.Subject(7), "7") + "07", 0, false},
		{strings.TrimSuffix(testEdge.Subject(7), "7") + "-1", 0, false},
		{strings.TrimSuffix(testEdge.Subject(7), "7"), 0, false},
		{Edge{Pipeline: "fraud", Producer: "enrich", Output: "side", Consumer: "score"}.Subject(3), 0, false},
	} {
		kg, ok := testEdge.KeyGroupOf(tc.subject, 128)
		if kg != tc.kg || ok != tc.ok {
			t.Errorf("KeyGroupOf(%q) = %d, %v; want %d, %v", tc.subject, kg, ok, tc.kg, tc.ok)
		}
	}
}

func TestFilterSubjects(t *testing.T) {
	all, err := testEdge.FilterSubjects(0, 128, 128)
	if err != nil || !slices.Equal(all, []string{testEdge.StreamSubject()}) {
		t.Errorf("all key groups: %v, %v; want the stream's subject", all, err)
	}
	some, err := testEdge.FilterSubjects(32, 35, 128)
	if want := []string{testEdge.Subject(32), testEdge.Subject(33), testEdge.Subject(34)}; err != nil || !slices.Equal(some, want) {
		t.Errorf("[32, 35): %v, %v; want %v", some, err, want)
	}
	for _, r := range [][3]int{{-1, 2, 4}, {2, 2, 4}, {3, 2, 4}, {0, 5, 4}, {0, 1, MaxKeyGroups + 1}} {
		if _, err := testEdge.FilterSubjects(r[0], r[1], r[2]); !errors.Is(err, ErrInvalidEdge) {
			t.Errorf("FilterSubjects%v = %v, want ErrInvalidEdge", r, err)
		}
	}
}
