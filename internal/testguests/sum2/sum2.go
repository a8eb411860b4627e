package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
)

// inputs is the number of inputs the operator keeps sums for.
const inputs = 2

// State per key and input, scoped by the host to the record's key.
var (
	sums   = [inputs]*wasmstream.ValueState[int64]{newState("sum", 0), newState("sum", 1)}
	counts = [inputs]*wasmstream.ValueState[int64]{newState("count", 0), newState("count", 1)}
)

// countVersion is the version the count states declare, chosen at build
// time with -ldflags "-X main.countVersion=N". "1" (the default) declares
// nothing; another version declares "count-0" and "count-1" with it and no
// migration: the module a restore of older counts must refuse.
var countVersion = "1"

func newState(kind string, input int) *wasmstream.ValueState[int64] {
	s := wasmstream.NewValueState(fmt.Sprintf("%s-%d", kind, input), wasmstream.Int64Codec)
	if v, err := strconv.Atoi(countVersion); kind == "count" && err == nil && v != 1 {
		s = s.Declare(wasmstream.StateOptions{Version: int32(v)})
	}
	return s
}

// errBadRecord is wrapped by every reason to reject a record.
var errBadRecord = errors.New("sum2: bad record")

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
	Count int64  `json:"count"`
}

type sum2 struct{}

// Init takes no config.
func (sum2) Init([]byte) error { return nil }

// Process adds the record's value to its key's sum for its input and emits
// the new sum.
func (sum2) Process(r *wasmstream.Record) error {
	rec, err := parseRecord(r)
	if err != nil {
		return err
	}
	res := result{K: rec.K, Input: r.Input, V: *rec.V}
	if res.Sum, err = add(sums[r.Input], res.V); err != nil {
		return err
	}
	if res.Count, err = add(counts[r.Input], 1); err != nil {
		return err
	}
	out, err := json.Marshal(res)
	if err != nil {
		return err
	}
	return wasmstream.Emit("out", r.Key, out)
}

// parseRecord decodes and checks one record.
func parseRecord(r *wasmstream.Record) (record, error) {
	var rec record
	if r.Input < 0 || r.Input >= inputs {
		return rec, fmt.Errorf("%w: input %d; the operator takes at most %d inputs", errBadRecord, r.Input, inputs)
	}
	if err := json.Unmarshal(r.Value, &rec); err != nil {
		return rec, fmt.Errorf("%w: not valid JSON: %v", errBadRecord, err)
	}
	switch {
	case rec.K == "":
		return rec, fmt.Errorf("%w: missing k", errBadRecord)
	case rec.V == nil:
		return rec, fmt.Errorf("%w: key %s: missing v", errBadRecord, rec.K)
	case rec.K != string(r.Key):
		// State is scoped by the record key: a sum kept under another key
		// would be wrong without any error.
		return rec, fmt.Errorf("%w: k %q does not match the record key %q", errBadRecord, rec.K, r.Key)
	}
	return rec, nil
}

// add adds delta to the current key's value of s and returns the new value.
func add(s *wasmstream.ValueState[int64], delta int64) (int64, error) {
	v, _, err := s.Get()
	if err != nil {
		return 0, err
	}
	v += delta
	return v, s.Put(v)
}
