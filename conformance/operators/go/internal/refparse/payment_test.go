package refparse

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestParsePayment(t *testing.T) {
	tests := []struct {
		in   string
		want Payment
		ok   bool
	}{
		{`{"account":"a","event":"e","cents":5}`, Payment{"a", "e", 5}, true},
		{`{"cents":0,"event":"e","account":"a"}`, Payment{"a", "e", 0}, true},
		{`{"account":"a","event":"e","cents":-5}`, Payment{"a", "e", -5}, true},
		{`{"account":"a","note":"x","event":"e","n":7,"cents":5}`, Payment{"a", "e", 5}, true},
		{`{"account":"a","event":"e"}`, Payment{}, false},
		{`{"account":"a","cents":5}`, Payment{}, false},
		{`{"event":"e","cents":5}`, Payment{}, false},
		{`{"account":"a","event":"e","cents":"5"}`, Payment{}, false},
		{`{"account":7,"event":"e","cents":5}`, Payment{}, false},
		{`{"account":"a","event":8,"cents":5}`, Payment{}, false},
		{`not json`, Payment{}, false},
	}
	for _, tt := range tests {
		got, err := ParsePayment([]byte(tt.in))
		if tt.ok != (err == nil) || got != tt.want {
			t.Errorf("ParsePayment(%s) = %+v, %v; want %+v, ok=%t", tt.in, got, err, tt.want, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrPayment) {
			t.Errorf("ParsePayment(%s): %v does not wrap ErrPayment", tt.in, err)
		}
	}
}

func TestAppendCounterResult(t *testing.T) {
	got := AppendCounterResult(nil, Payment{Account: "acct-ü", Event: "evt-1", Cents: 1200}, -3)
	want := `{"account":"acct-ü","event":"evt-1","cents":1200,"total":-3}`
	if string(got) != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	got = AppendCounterResult(nil, Payment{Account: "a<&>", Event: "e\u2028\u2029", Cents: 1}, 1)
	want = `{"account":"a\u003c\u0026\u003e","event":"e\u2028\u2029","cents":1,"total":1}`
	if string(got) != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// counterResult is what payment-risk marshals with encoding/json.
type counterResult struct {
	Account string `json:"account"`
	Event   string `json:"event"`
	Cents   int64  `json:"cents"`
	Total   int64  `json:"total"`
}

// For every payment of the subset, the output is byte-identical to what
// encoding/json (and so payment-risk) writes.
func FuzzCounterResultMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{"acct-1", "a<b>&c", "東京\u2028\u2029", "", "\u007f\u0080"} {
		f.Add(s, s, int64(5), int64(7))
	}
	f.Fuzz(func(t *testing.T, account, event string, cents, total int64) {
		if _, err := ParseObject([]byte(`{"a":"` + account + `","e":"` + event + `"}`)); err != nil {
			return // outside the subset
		}
		p := Payment{Account: account, Event: event, Cents: cents}
		want, err := json.Marshal(counterResult{account, event, cents, total})
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendCounterResult(nil, p, total); string(got) != string(want) {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	})
}

func TestCheckPayment(t *testing.T) {
	tests := []struct {
		p   Payment
		max int64
		ok  bool
	}{
		{Payment{"a", "e", 0}, 0, true},
		{Payment{"a", "e", 10}, 10, true},
		{Payment{"a", "e", 11}, 10, false},
		{Payment{"a", "e", 1 << 40}, 0, true},
		{Payment{"a", "e", -1}, 0, false},
		{Payment{"", "e", 1}, 0, false},
		{Payment{"a", "", 1}, 0, false},
	}
	for _, tt := range tests {
		err := CheckPayment(tt.p, tt.max)
		if tt.ok != (err == nil) || (err != nil && !errors.Is(err, ErrRefused)) {
			t.Errorf("CheckPayment(%+v, %d) = %v, want ok=%t", tt.p, tt.max, err, tt.ok)
		}
	}
}
