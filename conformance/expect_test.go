package conformance

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestStateJSONRoundTrip(t *testing.T) {
	s := State{}
	s.Set([]byte("acct-1"), []byte("total"), []byte{1, 0, 0, 0, 0, 0, 0, 0})
	s.Set([]byte("acct-1"), []byte("seen\x00evt-1"), []byte{1})
	s.Set([]byte{0, 0xff}, []byte("seen"), []byte("text"))
	s.Set([]byte("hex:x"), []byte{0xfe}, nil)
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back State
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(normalizeState(back), normalizeState(s)) {
		t.Fatalf("%s reads back as %v, want %v", b, back, s)
	}
}

func normalizeState(s State) State {
	out := State{}
	for k, names := range s {
		for n, v := range names {
			out.Set([]byte(k), []byte(n), append([]byte{}, v...))
		}
	}
	return out
}

func TestSetCopiesValues(t *testing.T) {
	s := State{}
	v := []byte("x")
	s.Set([]byte("k"), []byte("n"), v)
	v[0] = 'y'
	if string(s["k"]["n"]) != "x" {
		t.Fatal("State.Set kept the caller's slice")
	}
}
