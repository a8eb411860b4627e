//go:build !wasip1

package main

import (
	"encoding/binary"
	"testing"

	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

func TestEchoEmitsNoteThenValue(t *testing.T) {
	h, err := sdktest.New(echo{}, sdktest.Options{Outputs: []string{"out"}})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		res, err := h.Process(sdktest.Record{Key: []byte("k"), Value: []byte("hello")})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Outputs) != 2 || string(res.Outputs[0].Value) != "5 bytes" || string(res.Outputs[1].Value) != "hello" {
			t.Fatalf("outputs %+v, want the note then the value", res.Outputs)
		}
	}
	b, ok := h.State("k", "count")
	if !ok || len(b) != 8 || binary.LittleEndian.Uint64(b) != 2 {
		t.Fatalf("count %v (%v), want 2", b, ok)
	}
}
