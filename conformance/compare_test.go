package conformance

import (
	"strings"
	"testing"
)

func sampleExpect() *Expect {
	s := State{}
	s.Set([]byte("k"), []byte("count"), []byte{2, 0, 0, 0, 0, 0, 0, 0})
	return &Expect{
		Outputs: []Output{
			{Batch: 0, Record: 0, Output: "out", Key: Bytes("k"), Value: Bytes("a"), Headers: []Header{{Name: Bytes("count"), Value: Bytes("1")}}},
			{Batch: 0, Record: 2, Output: "out", Key: Bytes("k"), Value: Bytes("b"), Headers: []Header{{Name: Bytes("count"), Value: Bytes("2")}}},
		},
		DeadLetters: []DeadLetter{{Batch: 0, Record: 1, Kind: "trap", Reason: "x"}},
		Migration: &Migration{
			Declarations: []Declaration{{Name: Bytes("total"), Version: 2, Flags: 8}},
			Migrated:     2, Deleted: 1,
			Error: &MigrationError{Kind: "trap", Code: "GUEST_INTERNAL", Name: Bytes("total"), Key: Bytes("k"), Reason: "x"},
		},
		State: s,
	}
}

func TestCompareIdentical(t *testing.T) {
	got := sampleExpect()
	got.DeadLetters[0].Reason = "another reason: not compared"
	got.Migration.Error.Reason = "not compared either"
	if d := Compare(sampleExpect(), got); d != nil {
		t.Fatalf("identical results differ: %v", d)
	}
}

// Every field of a result is compared: changing any one is reported.
func TestCompareSeesEveryField(t *testing.T) {
	mutations := map[string]func(e *Expect){
		"init error":       func(e *Expect) { e.InitError = &InitError{Kind: "init", Code: "GUEST_CONFIG"} },
		"output batch":     func(e *Expect) { e.Outputs[0].Batch = 1 },
		"output record":    func(e *Expect) { e.Outputs[1].Record = 1 },
		"output name":      func(e *Expect) { e.Outputs[0].Output = "other" },
		"output key":       func(e *Expect) { e.Outputs[0].Key = Bytes("K") },
		"output value":     func(e *Expect) { e.Outputs[0].Value = Bytes("a ") },
		"header name":      func(e *Expect) { e.Outputs[0].Headers[0].Name = Bytes("Count") },
		"header value":     func(e *Expect) { e.Outputs[0].Headers[0].Value = Bytes("01") },
		"extra header":     func(e *Expect) { e.Outputs[0].Headers = append(e.Outputs[0].Headers, Header{Name: Bytes("x")}) },
		"output order":     func(e *Expect) { e.Outputs[0], e.Outputs[1] = e.Outputs[1], e.Outputs[0] },
		"missing output":   func(e *Expect) { e.Outputs = e.Outputs[:1] },
		"extra output":     func(e *Expect) { e.Outputs = append(e.Outputs, e.Outputs[0]) },
		"dead letter kind": func(e *Expect) { e.DeadLetters[0].Kind = "record_failed" },
		"dead letter rec":  func(e *Expect) { e.DeadLetters[0].Record = 0 },
		"no dead letter":   func(e *Expect) { e.DeadLetters = nil },
		"state value":      func(e *Expect) { e.State["k"]["count"] = []byte{3, 0, 0, 0, 0, 0, 0, 0} },
		"state name":       func(e *Expect) { e.State.Set([]byte("k"), []byte("other"), nil) },
		"state key":        func(e *Expect) { e.State.Set([]byte("j"), []byte("count"), nil) },
		"state missing":    func(e *Expect) { delete(e.State, "k") },
		"no migration":     func(e *Expect) { e.Migration = nil },
		"migrated count":   func(e *Expect) { e.Migration.Migrated = 3 },
		"deleted count":    func(e *Expect) { e.Migration.Deleted = 0 },
		"migration decl":   func(e *Expect) { e.Migration.Declarations[0].Version = 3 },
		"migration ok":     func(e *Expect) { e.Migration.Error = nil },
		"migration code":   func(e *Expect) { e.Migration.Error.Code = "GUEST_RECORD" },
		"migration name":   func(e *Expect) { e.Migration.Error.Name = Bytes("seen") },
		"migration key":    func(e *Expect) { e.Migration.Error.Key = Bytes("j") },
	}
	for name, mutate := range mutations {
		got := sampleExpect()
		mutate(got)
		if d := Compare(sampleExpect(), got); len(d) == 0 {
			t.Errorf("%s: not reported", name)
		}
	}
}

func TestCompareBoundsTheList(t *testing.T) {
	got := sampleExpect()
	for i := 0; i < 3*maxDiffs; i++ {
		got.Outputs = append(got.Outputs, got.Outputs[0])
	}
	d := Compare(sampleExpect(), got)
	if len(d) != maxDiffs+1 || !strings.Contains(d[maxDiffs], "not shown") {
		t.Fatalf("%d differences listed: %v", len(d), d)
	}
}
