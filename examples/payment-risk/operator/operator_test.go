//go:build !wasip1

package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

func newHarness(t *testing.T, config string) *sdktest.Harness {
	t.Helper()
	h, err := sdktest.New(&riskOperator{}, sdktest.Options{Config: []byte(config), Outputs: []string{"out"}})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func payment(account, value string) sdktest.Record {
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

// The pinned scenario: evt-47, evt-48, evt-48 again.
func TestPinnedEvents(t *testing.T) {
	h := newHarness(t, "")
	var outputs []sdktest.Output
	var logs []sdktest.LogLine
	for _, v := range []string{
		`{"account":"acct-47","event":"evt-47","cents":1200}`,
		`{"account":"acct-47","event":"evt-48","cents":900}`,
		`{"account":"acct-47","event":"evt-48","cents":900}`,
	} {
		res, err := h.Process(payment("acct-47", v))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.DeadLetters) != 0 {
			t.Fatalf("dead letters: %+v", res.DeadLetters)
		}
		outputs = append(outputs, res.Outputs...)
		logs = append(logs, res.Logs...)
	}
	if total := totalOf(t, h, "acct-47"); total != 2100 {
		t.Fatalf("total = %d, want 2100", total)
	}
	if len(outputs) != 2 {
		t.Fatalf("%d outputs, want 2", len(outputs))
	}
	want := `{"account":"acct-47","event":"evt-48","cents":900,"total":2100}`
	last := outputs[1]
	if last.Output != "out" || string(last.Key) != "acct-47" || string(last.Value) != want {
		t.Fatalf("second output %s %s %s, want out acct-47 %s", last.Output, last.Key, last.Value, want)
	}
	if len(last.Headers) != 1 || last.Headers[0] != (wasmstream.Header{Name: "event-id", Value: "evt-48"}) {
		t.Fatalf("headers %v, want event-id evt-48", last.Headers)
	}
	if len(logs) != 1 || logs[0].Level != wasmstream.LevelDebug || !strings.Contains(logs[0].Msg, "duplicate event evt-48") {
		t.Fatalf("logs %+v, want one debug line about the duplicate", logs)
	}
}

// A redelivery inside one batch is caught too: the batch sees its own writes.
func TestDuplicateInsideOneBatch(t *testing.T) {
	h := newHarness(t, "")
	e := `{"account":"a","event":"e1","cents":5}`
	res, err := h.Process(payment("a", e), payment("a", e))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outputs) != 1 || totalOf(t, h, "a") != 5 {
		t.Fatalf("%d outputs, total %d; want 1 and 5", len(res.Outputs), totalOf(t, h, "a"))
	}
}

func TestTotalsArePerAccount(t *testing.T) {
	h := newHarness(t, "")
	_, err := h.Process(
		payment("a", `{"account":"a","event":"e1","cents":10}`),
		payment("b", `{"account":"b","event":"e1","cents":20}`),
		payment("a", `{"account":"a","event":"e2","cents":1}`),
	)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := totalOf(t, h, "a"), totalOf(t, h, "b"); a != 11 || b != 20 {
		t.Fatalf("totals a=%d b=%d, want 11 and 20 (the same event id in two accounts counts twice)", a, b)
	}
}

func TestBadRecordsGoToDeadLetters(t *testing.T) {
	tests := []struct {
		name, value, reason string
	}{
		{"not JSON", `{"account":`, "not valid JSON"},
		{"negative", `{"account":"a","event":"e","cents":-1}`, "negative cents -1"},
		{"missing cents", `{"account":"a","event":"e"}`, "missing cents"},
		{"null cents", `{"account":"a","event":"e","cents":null}`, "missing cents"},
		{"missing event", `{"account":"a","cents":1}`, "missing event id"},
		{"missing account", `{"event":"e","cents":1}`, "missing account"},
		{"fractional cents", `{"account":"a","event":"e","cents":1.5}`, "not valid JSON"},
		{"other key", `{"account":"b","event":"e","cents":1}`, `does not match the record key "a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "")
			res, err := h.Process(payment("a", tt.value), payment("a", `{"account":"a","event":"ok","cents":3}`))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.DeadLetters) != 1 || !strings.Contains(res.DeadLetters[0].Reason, tt.reason) {
				t.Fatalf("dead letters %+v, want one whose reason mentions %q", res.DeadLetters, tt.reason)
			}
			if len(res.Outputs) != 1 || totalOf(t, h, "a") != 3 {
				t.Fatalf("the good record of the batch was not committed: %d outputs, total %d", len(res.Outputs), totalOf(t, h, "a"))
			}
		})
	}
}

func TestMaxCents(t *testing.T) {
	h := newHarness(t, `{"max_cents": 1000}`)
	res, err := h.Process(
		payment("a", `{"account":"a","event":"e1","cents":1000}`),
		payment("a", `{"account":"a","event":"e2","cents":1001}`),
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.DeadLetters) != 1 || !strings.Contains(res.DeadLetters[0].Reason, "1001 cents is over max_cents 1000") {
		t.Fatalf("dead letters %+v", res.DeadLetters)
	}
	if totalOf(t, h, "a") != 1000 {
		t.Fatalf("total %d, want 1000", totalOf(t, h, "a"))
	}
}

func TestOverflowIsRejected(t *testing.T) {
	h := newHarness(t, "")
	h.SetState("a", "total", wasmstream.Int64Codec.Encode(nil, 1<<62))
	res, err := h.Process(payment("a", `{"account":"a","event":"e","cents":4611686018427387904}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.DeadLetters) != 1 || !strings.Contains(res.DeadLetters[0].Reason, "overflow") {
		t.Fatalf("dead letters %+v, want an overflow", res.DeadLetters)
	}
}

func TestBadConfig(t *testing.T) {
	for _, cfg := range []string{`{"max_cent": 5}`, `{"max_cents": -1}`, `[1]`, `{"max_cents": 1} x`} {
		_, err := sdktest.New(&riskOperator{}, sdktest.Options{Config: []byte(cfg)})
		if !errors.Is(err, sdktest.ErrInit) || !strings.Contains(err.Error(), "payment-risk config") {
			t.Errorf("config %s: %v, want an Init error naming the config", cfg, err)
		}
	}
	for _, cfg := range []string{"", "  \n", `{}`, `{"max_cents": 0}`} {
		if _, err := sdktest.New(&riskOperator{}, sdktest.Options{Config: []byte(cfg)}); err != nil {
			t.Errorf("config %q: %v", cfg, err)
		}
	}
}

func TestOutputIsTheDocumentedJSON(t *testing.T) {
	h := newHarness(t, "")
	res, err := h.Process(payment("acct-1", `{"account":"acct-1","event":"e","cents":7,"extra":true}`))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(res.Outputs[0].Value, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || got["total"] != float64(7) || got["cents"] != float64(7) {
		t.Fatalf("output %s", res.Outputs[0].Value)
	}
}

// FuzzParseEvent feeds arbitrary record values to the parser: it must
// never panic, and an accepted event must be complete and non-negative.
func FuzzParseEvent(f *testing.F) {
	f.Add([]byte(`{"account":"acct-47","event":"evt-47","cents":1200}`), int64(0))
	f.Add([]byte(`{"cents":-1}`), int64(5))
	f.Add([]byte(`nul`), int64(0))
	f.Fuzz(func(t *testing.T, value []byte, maxCents int64) {
		ev, err := parseEvent(value, maxCents)
		if err != nil {
			if !errors.Is(err, errBadEvent) {
				t.Fatalf("error %v does not wrap errBadEvent", err)
			}
			return
		}
		if ev.Account == "" || ev.Event == "" || ev.Cents == nil || *ev.Cents < 0 || (maxCents > 0 && *ev.Cents > maxCents) {
			t.Fatalf("accepted %+v from %q", ev, value)
		}
	})
}

// FuzzParseConfig feeds arbitrary config bytes: no panic, errors wrap
// errConfig, and an accepted limit is not negative.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(`{"max_cents": 5}`))
	f.Add([]byte(``))
	f.Add([]byte(`{"max_cents": -5}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := parseConfig(b)
		if err != nil && !errors.Is(err, errConfig) {
			t.Fatalf("error %v does not wrap errConfig", err)
		}
		if err == nil && c.MaxCents < 0 {
			t.Fatalf("accepted negative max_cents from %q", b)
		}
	})
}
