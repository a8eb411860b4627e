//go:build !wasip1

package main

import (
	"testing"

	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

func TestDedupFirstDeliveryWins(t *testing.T) {
	h, err := sdktest.New(dedup{}, sdktest.Options{Outputs: []string{"out"}})
	if err != nil {
		t.Fatal(err)
	}
	rec := func(k, v string) sdktest.Record { return sdktest.Record{Key: []byte(k), Value: []byte(v)} }
	res, err := h.Process(rec("a", "1"), rec("b", "2"), rec("a", "3"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outputs) != 2 || string(res.Outputs[1].Value) != "2" || len(res.Outputs[1].Headers) != 0 {
		t.Fatalf("outputs %+v", res.Outputs)
	}
	if v, ok := h.State("a", "seen"); !ok || string(v) != "\x01" {
		t.Fatalf("seen = %q, %t", v, ok)
	}
}
