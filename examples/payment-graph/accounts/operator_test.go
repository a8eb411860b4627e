//go:build !wasip1

package main

import (
	"errors"
	"strings"
	"testing"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

func newHarness(t *testing.T, config string) *sdktest.Harness {
	t.Helper()
	h, err := sdktest.New(&accountsOperator{}, sdktest.Options{Config: []byte(config), Outputs: []string{"scored"}})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func record(account, value string) sdktest.Record {
	return sdktest.Record{Key: []byte(account), Value: []byte(value)}
}

func totalOf(t *testing.T, h *sdktest.Harness, account string) int64 {
	t.Helper()
	raw, ok := h.State(account, "total")
	if !ok {
		return 0
	}
	n, err := wasmstream.Int64Codec.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A redelivered event counts once; the total crossing the limit flags the
// event that crossed it and every later one.
func TestDeduplicatesAndFlags(t *testing.T) {
	h := newHarness(t, `{"flag_over_cents": 5000}`)
	res, err := h.Process(
		record("acct-2", `{"event":"evt-2","account":"acct-2","merchant":"m-2","region":"us","cents":3000}`),
		record("acct-2", `{"event":"evt-5","account":"acct-2","merchant":"m-1","region":"eu","cents":2600}`),
		record("acct-2", `{"event":"evt-5","account":"acct-2","merchant":"m-1","region":"eu","cents":2600}`),
		record("acct-2", `{"event":"evt-9","account":"acct-2","merchant":"m-2","region":"us","cents":700}`),
	)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"event":"evt-2","account":"acct-2","merchant":"m-2","region":"us","cents":3000,"total":3000,"flagged":0}`,
		`{"event":"evt-5","account":"acct-2","merchant":"m-1","region":"eu","cents":2600,"total":5600,"flagged":1}`,
		`{"event":"evt-9","account":"acct-2","merchant":"m-2","region":"us","cents":700,"total":6300,"flagged":1}`,
	}
	if len(res.Outputs) != len(want) {
		t.Fatalf("%d outputs, want %d", len(res.Outputs), len(want))
	}
	for i, o := range res.Outputs {
		if o.Output != "scored" || string(o.Key) != "acct-2" || string(o.Value) != want[i] {
			t.Errorf("output %d: %s %s %s, want scored acct-2 %s", i, o.Output, o.Key, o.Value, want[i])
		}
	}
	if got := totalOf(t, h, "acct-2"); got != 6300 {
		t.Errorf("total %d, want 6300", got)
	}
}

func TestNoConfigFlagsNothing(t *testing.T) {
	h := newHarness(t, "")
	res, err := h.Process(record("a", `{"event":"e","account":"a","merchant":"m","region":"r","cents":999999}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outputs) != 1 || !strings.HasSuffix(string(res.Outputs[0].Value), `"flagged":0}`) {
		t.Fatalf("outputs %+v, want one, not flagged", res.Outputs)
	}
}

func TestBadRecordsGoToDeadLetters(t *testing.T) {
	tests := []struct{ name, value, reason string }{
		{"not JSON", `{"account":`, "not valid JSON"},
		{"no region", `{"event":"e","account":"a","merchant":"m","cents":1}`, "region are required"},
		{"negative", `{"event":"e","account":"a","merchant":"m","region":"r","cents":-1}`, "negative cents -1"},
		{"missing cents", `{"event":"e","account":"a","merchant":"m","region":"r"}`, "missing cents"},
		{"other key", `{"event":"e","account":"b","merchant":"m","region":"r","cents":1}`, `does not match the record key "a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "")
			res, err := h.Process(record("a", tt.value))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.DeadLetters) != 1 || !strings.Contains(res.DeadLetters[0].Reason, tt.reason) {
				t.Fatalf("dead letters %+v, want one whose reason mentions %q", res.DeadLetters, tt.reason)
			}
		})
	}
}

func TestBadConfig(t *testing.T) {
	for _, cfg := range []string{`{"flag_over": 5}`, `{"flag_over_cents": -1}`, `[1]`} {
		_, err := sdktest.New(&accountsOperator{}, sdktest.Options{Config: []byte(cfg)})
		if !errors.Is(err, sdktest.ErrInit) || !strings.Contains(err.Error(), "accounts config") {
			t.Errorf("config %s: %v, want an Init error naming the config", cfg, err)
		}
	}
}
