package main

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
)

// count is i64le(records passed through for the key).
var count = wasmstream.NewValueState("count", wasmstream.Int64Codec)

// errMarked is the record error of a value starting with "fail".
var errMarked = errors.New("failer: the record asks to fail")

// failer passes records through, counting them, unless they ask to fail.
type failer struct {
	num []byte // decimal count, reused
}

// Init ignores the config.
func (*failer) Init([]byte) error { return nil }

// Process fails on "fail…", traps on "trap", and otherwise counts and
// emits the record.
func (f *failer) Process(r *wasmstream.Record) error {
	if bytes.HasPrefix(r.Value, []byte("fail")) {
		return fmt.Errorf("%w: value %q", errMarked, r.Value)
	}
	if string(r.Value) == "trap" {
		// A panic in a wasip1 module traps: the host discards the instance.
		panic("failer: the record asks to trap")
	}
	n, _, err := count.Get()
	if err != nil {
		return err
	}
	n++
	if err := count.Put(n); err != nil {
		return err
	}
	f.num = strconv.AppendInt(f.num[:0], n, 10)
	return wasmstream.Emit("out", r.Key, r.Value, wasmstream.Header{Name: "count", Value: string(f.num)})
}
