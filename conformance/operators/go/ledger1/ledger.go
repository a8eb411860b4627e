package main

import (
	"strconv"

	"github.com/wasmstream/wasmstream/conformance/operators/go/internal/refparse"
	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
)

// total is the key's running total as decimal text: version 1 of the
// state, which it never declares.
var total = wasmstream.NewValueState("total", wasmstream.BytesCodec)

// ledger adds each record's amount to its key's total.
type ledger struct {
	num []byte // decimal total, reused
}

// Init ignores the config.
func (*ledger) Init([]byte) error { return nil }

// Process adds the amount, stores the total and emits it.
func (l *ledger) Process(r *wasmstream.Record) error {
	amount, err := refparse.ParseDecimal(r.Value)
	if err != nil {
		return err
	}
	stored, found, err := total.Get()
	if err != nil {
		return err
	}
	var sum int64
	if found {
		if sum, err = refparse.ParseDecimal(stored); err != nil {
			return err
		}
	}
	l.num = strconv.AppendInt(l.num[:0], sum+amount, 10)
	if err := total.Put(l.num); err != nil {
		return err
	}
	return wasmstream.Emit("out", r.Key, l.num)
}
