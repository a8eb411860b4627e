//go:build !wasip1

package main

import (
	"bytes"
	"testing"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

func TestCountsAndEchoes(t *testing.T) {
	h, err := sdktest.New(bench{}, sdktest.Options{Outputs: []string{"out"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.Process(
		sdktest.Record{Key: []byte("a"), Value: []byte("v1")},
		sdktest.Record{Key: []byte("a"), Value: []byte("v2")},
		sdktest.Record{Key: []byte("b"), Value: []byte("v3")},
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outputs) != 3 || !bytes.Equal(res.Outputs[1].Value, []byte("v2")) || res.Outputs[1].Output != "out" {
		t.Fatalf("outputs %+v", res.Outputs)
	}
	raw, _ := h.State("a", "count")
	if n, err := wasmstream.Int64Codec.Decode(raw); err != nil || n != 2 {
		t.Fatalf("count of a = %d, %v; want 2", n, err)
	}
}
