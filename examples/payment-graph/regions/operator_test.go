//go:build !wasip1

package main

import (
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

func newHarness(t *testing.T) *sdktest.Harness {
	t.Helper()
	h, err := sdktest.New(regionsOperator{}, sdktest.Options{Outputs: []string{"totals"}})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func record(region, value string) sdktest.Record {
	return sdktest.Record{Key: []byte(region), Value: []byte(value)}
}

// Each delta updates its own region's totals, and the new totals are emitted.
func TestTotalsPerRegion(t *testing.T) {
	h := newHarness(t)
	res, err := h.Process(
		record("eu", `{"event":"evt-1","merchant":"m-1","region":"eu","cents":1200,"flagged":0}`),
		record("us", `{"event":"evt-2","merchant":"m-2","region":"us","cents":3000,"flagged":0}`),
		record("eu", `{"event":"evt-5","merchant":"m-1","region":"eu","cents":2600,"flagged":1}`),
	)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"region":"eu","count":1,"cents":1200,"flagged":0}`,
		`{"region":"us","count":1,"cents":3000,"flagged":0}`,
		`{"region":"eu","count":2,"cents":3800,"flagged":1}`,
	}
	if len(res.Outputs) != len(want) {
		t.Fatalf("%d outputs, want %d", len(res.Outputs), len(want))
	}
	for i, o := range res.Outputs {
		if o.Output != "totals" || string(o.Value) != want[i] {
			t.Errorf("output %d: %s %s, want totals %s", i, o.Output, o.Value, want[i])
		}
	}
}

func TestBadRecordsGoToDeadLetters(t *testing.T) {
	tests := []struct{ name, value, reason string }{
		{"not JSON", `{"region":`, "not valid JSON"},
		{"no cents", `{"event":"e","region":"eu","flagged":0}`, "cents missing or negative"},
		{"flagged 2", `{"event":"e","region":"eu","cents":1,"flagged":2}`, "flagged is not 0 or 1"},
		{"other key", `{"event":"e","region":"us","cents":1,"flagged":0}`, `does not match the record key "eu"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := newHarness(t).Process(record("eu", tt.value))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.DeadLetters) != 1 || !strings.Contains(res.DeadLetters[0].Reason, tt.reason) {
				t.Fatalf("dead letters %+v, want one whose reason mentions %q", res.DeadLetters, tt.reason)
			}
		})
	}
}
