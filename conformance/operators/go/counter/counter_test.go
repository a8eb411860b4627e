//go:build !wasip1

package main

import (
	"encoding/binary"
	"testing"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

// The wasm module is checked against every case by the conformance suite;
// these tests pin the rules natively, where a failure is quick to debug.

func pay(account, value string) sdktest.Record {
	return sdktest.Record{Key: []byte(account), Value: []byte(value)}
}

func TestCounterTotalsAndDeduplicates(t *testing.T) {
	h, err := sdktest.New(&counter{}, sdktest.Options{Outputs: []string{"out"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.Process(
		pay("a", `{"account":"a","event":"e1","cents":5}`),
		pay("a", `{"account":"a","event":"e1","cents":5}`),
		pay("a", `{"account":"a","event":"e2","cents":7}`),
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outputs) != 2 || len(res.DeadLetters) != 0 {
		t.Fatalf("outputs %+v, dead letters %+v", res.Outputs, res.DeadLetters)
	}
	want := `{"account":"a","event":"e2","cents":7,"total":12}`
	if got := res.Outputs[1]; string(got.Value) != want || got.Headers[0] != (wasmstream.Header{Name: "event-id", Value: "e2"}) {
		t.Fatalf("second output %s %+v, want %s", got.Value, got.Headers, want)
	}
	raw, _ := h.State("a", "total")
	if n := int64(binary.LittleEndian.Uint64(raw)); n != 12 {
		t.Fatalf("total %d, want 12", n)
	}
	if v, ok := h.MapState("a", "seen", "e2"); !ok || string(v) != "\x01" {
		t.Fatalf("seen e2 = %q, %t", v, ok)
	}
}

func TestCounterRecordErrors(t *testing.T) {
	h, err := sdktest.New(&counter{}, sdktest.Options{Config: []byte(`{"max_cents":100}`), Outputs: []string{"out"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.Process(
		pay("a", `{"account":"a","event":"e1","cents":101}`),
		pay("a", `{"account":"a","event":"e2","cents":-1}`),
		pay("a", `{"account":"b","event":"e3","cents":1}`),
		pay("a", `{"account":"a","event":"e4"}`),
		pay("a", `{"account":"a","event":"e5","cents":100}`),
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.DeadLetters) != 4 || len(res.Outputs) != 1 {
		t.Fatalf("%d dead letters, %d outputs; want 4 and 1", len(res.DeadLetters), len(res.Outputs))
	}
}

func TestCounterRejectsConfig(t *testing.T) {
	for _, cfg := range []string{`{"max_cents":-1}`, `{"max_cents":"1"}`, `{"max_cents":1,"x":2}`, `x`} {
		if _, err := sdktest.New(&counter{}, sdktest.Options{Config: []byte(cfg)}); err == nil {
			t.Errorf("config %q accepted", cfg)
		}
	}
}
