//go:build !wasip1

package main

import (
	"testing"

	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

func TestLedger1AddsAmountsAsDecimalText(t *testing.T) {
	h, err := sdktest.New(&ledger{}, sdktest.Options{Outputs: []string{"out"}})
	if err != nil {
		t.Fatal(err)
	}
	rec := func(v string) sdktest.Record { return sdktest.Record{Key: []byte("a"), Value: []byte(v)} }
	res, err := h.Process(rec("5"), rec("x"), rec("-7"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outputs) != 2 || len(res.DeadLetters) != 1 {
		t.Fatalf("outputs %+v, dead letters %+v", res.Outputs, res.DeadLetters)
	}
	if v, _ := h.State("a", "total"); string(v) != "-2" {
		t.Fatalf("total %q, want -2", v)
	}
}
