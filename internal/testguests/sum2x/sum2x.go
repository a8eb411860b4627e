package main

import (
	"encoding/json"
	"errors"
	"fmt"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
)

// sums holds, per input, the key's sum; the host scopes it to the record's key.
var sums = [2]*wasmstream.ValueState[int64]{
	wasmstream.NewValueState("sum-0", wasmstream.Int64Codec),
	wasmstream.NewValueState("sum-1", wasmstream.Int64Codec),
}

// errBadRecord is wrapped by every reason to reject a record.
var errBadRecord = errors.New("sum2x: bad record")

// record is one input record.
type record struct {
	K string `json:"k"`
	V *int64 `json:"v"` // a pointer tells a missing value from 0
}

// result is what the operator emits per record.
type result struct {
	K     string `json:"k"`
	Input int    `json:"input"`
	V     int64  `json:"v"`
	Sum   int64  `json:"sum"`
}

// sum2x adds each record to its key's sum of the record's input.
type sum2x struct{}

// Init takes no config: a setting meant for this guest must not be ignored.
func (sum2x) Init(config []byte) error {
	if len(config) != 0 {
		return fmt.Errorf("sum2x takes no config, got %d bytes", len(config))
	}
	return nil
}

// Process adds the record's v to its key's sum of its input and emits the new sum.
func (sum2x) Process(r *wasmstream.Record) error {
	rec, err := parse(r)
	if err != nil {
		return err
	}
	sum := sums[r.Input]
	old, _, err := sum.Get()
	if err != nil {
		return err
	}
	if err := sum.Put(old + *rec.V); err != nil {
		return err
	}
	out, err := json.Marshal(result{K: rec.K, Input: r.Input, V: *rec.V, Sum: old + *rec.V})
	if err != nil {
		return err
	}
	return wasmstream.Emit("out", r.Key, out)
}

// parse decodes and checks a record.
func parse(r *wasmstream.Record) (record, error) {
	var rec record
	if r.Input < 0 || r.Input >= len(sums) {
		return rec, fmt.Errorf("%w: input %d, the guest has inputs 0 and 1", errBadRecord, r.Input)
	}
	if err := json.Unmarshal(r.Value, &rec); err != nil {
		return rec, fmt.Errorf("%w: not valid JSON: %v", errBadRecord, err)
	}
	switch {
	case rec.K == "" || rec.V == nil:
		return rec, fmt.Errorf("%w: want {\"k\":KEY,\"v\":N}, got %s", errBadRecord, r.Value)
	case rec.K != string(r.Key):
		return rec, fmt.Errorf("%w: k %q is not the record key %q", errBadRecord, rec.K, r.Key)
	}
	return rec, nil
}
