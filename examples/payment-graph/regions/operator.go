package main

import (
	"encoding/json"
	"fmt"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
)

// State, scoped by the host to the region of the current record.
var (
	count   = wasmstream.NewValueState("count", wasmstream.Int64Codec)
	cents   = wasmstream.NewValueState("cents", wasmstream.Int64Codec)
	flagged = wasmstream.NewValueState("flagged", wasmstream.Int64Codec)
)

// regionsOperator keeps totals per region; it has no config.
type regionsOperator struct{}

// Init accepts no config but an empty one.
func (regionsOperator) Init(b []byte) error {
	if len(b) != 0 {
		return fmt.Errorf("payment-graph regions takes no config, got %q", b)
	}
	return nil
}

// Process adds one payment to its region's totals and emits them.
func (regionsOperator) Process(r *wasmstream.Record) error {
	d, err := parseDelta(r.Value)
	if err != nil {
		return err
	}
	if d.Region != string(r.Key) {
		return fmt.Errorf("%w: event %s: region %q does not match the record key %q", errBadDelta, d.Event, d.Region, r.Key)
	}
	t := totals{Region: d.Region}
	if t.Count, err = add(count, 1); err != nil {
		return err
	}
	if t.Cents, err = add(cents, *d.Cents); err != nil {
		return err
	}
	if t.Flagged, err = add(flagged, *d.Flagged); err != nil {
		return err
	}
	out, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return wasmstream.Emit("totals", r.Key, out)
}

// add adds n to the value of s and returns the sum.
func add(s *wasmstream.ValueState[int64], n int64) (int64, error) {
	v, _, err := s.Get()
	if err != nil {
		return 0, err
	}
	v += n
	return v, s.Put(v)
}
