package main

import (
	"strconv"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
)

// count is the number of records seen per key.
var count = wasmstream.NewValueState("count", wasmstream.Int64Codec)

type echo struct{}

// Init takes no config.
func (echo) Init([]byte) error { return nil }

// Process counts the record, then emits its note and its value.
func (echo) Process(r *wasmstream.Record) error {
	n, _, err := count.Get()
	if err != nil {
		return err
	}
	if err := count.Put(n + 1); err != nil {
		return err
	}
	if err := wasmstream.Emit("out", r.Key, []byte(strconv.Itoa(len(r.Value))+" bytes")); err != nil {
		return err
	}
	return wasmstream.Emit("out", r.Key, r.Value)
}
