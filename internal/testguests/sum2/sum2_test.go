//go:build !wasip1

package main

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

func newHarness(t *testing.T) *sdktest.Harness {
	t.Helper()
	h, err := sdktest.New(sum2{}, sdktest.Options{Outputs: []string{"out"}})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func rec(key, value string, input int) sdktest.Record {
	return sdktest.Record{Key: []byte(key), Value: []byte(value), Input: input}
}

func stateInt(t *testing.T, h *sdktest.Harness, key, name string) int64 {
	t.Helper()
	b, ok := h.State(key, name)
	if !ok {
		return 0
	}
	if len(b) != 8 {
		t.Fatalf("state %s of %s: %d bytes", name, key, len(b))
	}
	return int64(binary.LittleEndian.Uint64(b))
}

func TestSumsPerKeyAndInput(t *testing.T) {
	h := newHarness(t)
	res, err := h.Process(
		rec("a", `{"k":"a","v":5}`, 0),
		rec("a", `{"k":"a","v":7}`, 1),
		rec("b", `{"k":"b","v":1}`, 0),
		rec("a", `{"k":"a","v":10}`, 0),
	)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"k":"a","input":0,"v":5,"sum":5,"count":1}`,
		`{"k":"a","input":1,"v":7,"sum":7,"count":1}`,
		`{"k":"b","input":0,"v":1,"sum":1,"count":1}`,
		`{"k":"a","input":0,"v":10,"sum":15,"count":2}`,
	}
	if len(res.Outputs) != len(want) || len(res.DeadLetters) != 0 {
		t.Fatalf("outputs %+v, dead letters %+v", res.Outputs, res.DeadLetters)
	}
	for i, o := range res.Outputs {
		if string(o.Value) != want[i] || o.Output != "out" {
			t.Errorf("output %d: %s on %q, want %s", i, o.Value, o.Output, want[i])
		}
	}
	for _, c := range []struct {
		key, name string
		want      int64
	}{{"a", "sum-0", 15}, {"a", "count-0", 2}, {"a", "sum-1", 7}, {"a", "count-1", 1}, {"b", "sum-0", 1}, {"b", "sum-1", 0}} {
		if got := stateInt(t, h, c.key, c.name); got != c.want {
			t.Errorf("state %s of %s = %d, want %d", c.name, c.key, got, c.want)
		}
	}
}

// TestNoDeduplication: a record delivered twice counts twice, so a double
// application after a crash shows in the state.
func TestNoDeduplication(t *testing.T) {
	h := newHarness(t)
	for range 2 {
		if _, err := h.Process(rec("a", `{"k":"a","v":3}`, 0)); err != nil {
			t.Fatal(err)
		}
	}
	if got := stateInt(t, h, "a", "sum-0"); got != 6 {
		t.Fatalf("sum-0 = %d, want 6", got)
	}
}

func TestBadRecordsAreDeadLettered(t *testing.T) {
	tests := []struct {
		name   string
		record sdktest.Record
		reason string
	}{
		{"not json", rec("a", `{`, 0), "not valid JSON"},
		{"no k", rec("a", `{"v":1}`, 0), "missing k"},
		{"no v", rec("a", `{"k":"a"}`, 0), "missing v"},
		{"other key", rec("a", `{"k":"b","v":1}`, 0), "does not match the record key"},
		{"third input", rec("a", `{"k":"a","v":1}`, 2), "input 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			res, err := h.Process(tt.record)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.DeadLetters) != 1 || !strings.Contains(res.DeadLetters[0].Reason, tt.reason) {
				t.Fatalf("dead letters %+v, want one with %q", res.DeadLetters, tt.reason)
			}
			if len(res.Outputs) != 0 || h.StateLen() != 0 {
				t.Fatalf("a rejected record left %d outputs and %d state entries", len(res.Outputs), h.StateLen())
			}
		})
	}
}
