package main

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/wasmstream/wasmstream/conformance/operators/go/internal/refparse"
	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
)

// limit is i64le(the account's limit), set by input 1.
var limit = wasmstream.NewValueState("limit", wasmstream.Int64Codec)

// errRecord is wrapped by every reason join refuses a record.
var errRecord = errors.New("join: record refused")

// The operator's inputs, in the order of the pipeline config.
const (
	inputPayments = 0
	inputLimits   = 1
)

// join checks payments against limits.
type join struct {
	out []byte // output value, reused
}

// Init ignores the config.
func (*join) Init([]byte) error { return nil }

// Process dispatches on the record's input.
func (j *join) Process(r *wasmstream.Record) error {
	switch r.Input {
	case inputPayments:
		return j.payment(r)
	case inputLimits:
		return setLimit(r)
	}
	return fmt.Errorf("%w: input %d: join has inputs 0 (payments) and 1 (limits)", errRecord, r.Input)
}

// setLimit stores the limit a record of input 1 carries.
func setLimit(r *wasmstream.Record) error {
	n, err := refparse.ParseDecimal(r.Value)
	if err != nil {
		return fmt.Errorf("%w: limit: %w", errRecord, err)
	}
	return limit.Put(n)
}

// payment emits "<event>,<cents>,<limit>,<verdict>" for a record of input 0.
func (j *join) payment(r *wasmstream.Record) error {
	p, err := refparse.ParsePayment(r.Value)
	if err == nil {
		err = refparse.CheckPayment(p, 0) // counter's rules, without max_cents
	}
	if err != nil {
		return fmt.Errorf("%w: %w", errRecord, err)
	}
	l, found, err := limit.Get()
	if err != nil {
		return err
	}
	j.out = append(append(j.out[:0], p.Event...), ',')
	j.out = append(strconv.AppendInt(j.out, p.Cents, 10), ',')
	switch {
	case !found:
		j.out = append(j.out, "none,unknown"...)
	case p.Cents > l:
		j.out = append(strconv.AppendInt(j.out, l, 10), ",over"...)
	default:
		j.out = append(strconv.AppendInt(j.out, l, 10), ",ok"...)
	}
	return wasmstream.Emit("out", r.Key, j.out)
}
