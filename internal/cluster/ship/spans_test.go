package ship

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/internal/state"
)

func inSpan(k []byte, s keySpan) bool {
	return bytes.Compare(k, s.start) >= 0 && bytes.Compare(k, s.end) < 0
}

// The state span of a range holds exactly the keys internal/state writes
// for key groups of the range, for names and record keys of any length.
func TestStateSpanMatchesStateKeys(t *testing.T) {
	longOp := strings.Repeat("o", state.MaxOperatorLen)
	for _, tc := range []struct {
		op         string
		start, end int
	}{{"risk", 32, 64}, {"risk", 0, 1}, {"r", 0, 128}, {longOp, 32767, 32768}, {"risk", 255, 257}} {
		span := stateSpan(tc.op, tc.start, tc.end)
		for _, kg := range []int{0, 1, 31, 32, 33, 63, 64, 127, 128, 255, 256, 257, 32767} {
			for _, name := range [][]byte{{0}, []byte("count"), bytes.Repeat([]byte{0xff}, state.MaxStateNameLen)} {
				for _, userKey := range [][]byte{nil, {0}, bytes.Repeat([]byte{0xff}, 70)} {
					k := state.AppendStateKey(nil, tc.op, kg, name, userKey)
					want := kg >= tc.start && kg < tc.end
					if inSpan(k, span) != want {
						t.Fatalf("op %.8q range [%d,%d): key group %d name %.8q: in span %t, want %t", tc.op, tc.start, tc.end, kg, name, !want, want)
					}
					// Another operator whose name extends this one's: the
					// length prefix keeps it out.
					if len(tc.op) < state.MaxOperatorLen && inSpan(state.AppendStateKey(nil, tc.op+"x", kg, name, userKey), span) {
						t.Fatalf("a key of operator %.8qx is in the span of %.8q", tc.op, tc.op)
					}
				}
			}
		}
	}
}

// The outbox span holds every outbox key and no state or metadata key.
func TestOutboxSpanHoldsOutboxKeys(t *testing.T) {
	span := outboxSpan()
	for _, k := range []state.OutboxKey{{Epoch: 0, Operator: "a"}, {Epoch: math.MaxUint64, Operator: strings.Repeat("z", 255), Task: math.MaxUint16, Seq: math.MaxUint32}} {
		if !inSpan(state.AppendOutboxKey(nil, k), span) {
			t.Fatalf("outbox key %+v outside the outbox span", k)
		}
	}
	if inSpan(state.AppendStateKey(nil, "risk", 0, []byte("n"), nil), span) || inSpan(metaSpan("x").start, span) {
		t.Fatal("a state or metadata key in the outbox span")
	}
}

// A metadata span holds the key state.PutMeta writes for its name only,
// and the format_version span the entry state.Open writes.
func TestMetaSpanMatchesStateMeta(t *testing.T) {
	st, err := state.Open(t.TempDir(), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b := st.NewBatch()
	for _, name := range []string{"engine/deadletters/risk", "engine/deadletters/risk2"} {
		if err := state.PutMeta(b, name, []byte(name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Commit(b); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{metaFormatVersion, "engine/deadletters/risk"} {
		got := keysIn(t, st.DB(), metaSpan(name))
		if len(got) != 1 {
			t.Fatalf("metadata span of %q holds %d keys, want 1", name, len(got))
		}
	}
}

func keysIn(t *testing.T, db *pebble.DB, s keySpan) [][]byte {
	t.Helper()
	var keys [][]byte
	if err := scan(db, s, func(k, _ []byte) error { keys = append(keys, append([]byte(nil), k...)); return nil }); err != nil {
		t.Fatal(err)
	}
	return keys
}
