package global_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

func TestMergeDeadLetterLists(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []string
		want string
	}{
		{"union", []string{`[{"source":"s","sequence":5},{"source":"s","sequence":1}]`, `[{"sequence":5,"source":"s"},{"source":"r","sequence":9}]`},
			`[{"source":"r","sequence":9},{"source":"s","sequence":1},{"source":"s","sequence":5}]`},
		{"sequence order is numeric", []string{`[{"source":"s","sequence":10},{"source":"s","sequence":9}]`},
			`[{"source":"s","sequence":9},{"source":"s","sequence":10}]`},
		{"empty lists", []string{`[]`, `null`}, `[]`},
		{"none", nil, `[]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in [][]byte
			for _, s := range tc.in {
				in = append(in, []byte(s))
			}
			got, err := global.MergeDeadLetterLists(in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// The merged list reads back as the engine reads its own (a JSON array of
// source and sequence, plain json.Unmarshal) and is byte for byte what the
// engine's encoding (json.Marshal of that array) writes in this order.
func TestMergeDeadLetterListsEngineShape(t *testing.T) {
	type deadKey struct { // internal/engine/deadletters.go
		Source   string `json:"source"`
		Sequence uint64 `json:"sequence"`
	}
	got, err := global.MergeDeadLetterLists([][]byte{[]byte(`[{"source":"b","sequence":2},{"source":"a","sequence":3}]`)})
	if err != nil {
		t.Fatal(err)
	}
	var keys []deadKey
	if err := json.Unmarshal(got, &keys); err != nil {
		t.Fatal(err)
	}
	want := []deadKey{{"a", 3}, {"b", 2}}
	engine, _ := json.Marshal(want)
	if !reflect.DeepEqual(keys, want) || string(engine) != string(got) {
		t.Fatalf("got %s, the engine writes %s", got, engine)
	}
}

func TestMergeDeadLetterListsRefuses(t *testing.T) {
	for _, bad := range []string{`{}`, `[{"source":"s","sequence":"5"}]`, `[{"source":"s","sequence":5,"task":1}]`, `[] []`, ``, `[{"source":"s","sequence":-1}]`} {
		_, err := global.MergeDeadLetterLists([][]byte{[]byte(`[]`), []byte(bad)})
		testutil.WantErr(t, err, global.ErrCorrupt, "dead-letter list 2 of 2")
	}
}
