//go:build !wasip1

package wasmstream_test

import (
	"testing"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

// processFunc is an Operator made of one Process function.
type processFunc func(r *wasmstream.Record) error

func (processFunc) Init([]byte) error                    { return nil }
func (f processFunc) Process(r *wasmstream.Record) error { return f(r) }

// harness returns a harness for process with opts.
func harness(t *testing.T, opts sdktest.Options, process processFunc) *sdktest.Harness {
	t.Helper()
	h, err := sdktest.New(process, opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// rec is a record with a string key and value.
func rec(key, value string) sdktest.Record {
	return sdktest.Record{Key: []byte(key), Value: []byte(value)}
}

// mustProcess runs records as one batch and fails the test on an error.
func mustProcess(t *testing.T, h *sdktest.Harness, records ...sdktest.Record) sdktest.Result {
	t.Helper()
	res, err := h.Process(records...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
