//go:build !wasip1

package main

import (
	"errors"
	"testing"

	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

func TestFailerCountsFailsAndTraps(t *testing.T) {
	h, err := sdktest.New(&failer{}, sdktest.Options{Outputs: []string{"out"}})
	if err != nil {
		t.Fatal(err)
	}
	rec := func(v string) sdktest.Record { return sdktest.Record{Key: []byte("k"), Value: []byte(v)} }
	res, err := h.Process(rec("x"), rec("failure"), rec("y"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outputs) != 2 || len(res.DeadLetters) != 1 || res.Outputs[1].Headers[0].Value != "2" {
		t.Fatalf("outputs %+v, dead letters %+v", res.Outputs, res.DeadLetters)
	}
	if _, err := h.Process(rec("trap")); !errors.Is(err, sdktest.ErrTrap) {
		t.Fatalf("trap: %v, want sdktest.ErrTrap", err)
	}
}
