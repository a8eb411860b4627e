package main

import (
	"errors"
	"fmt"
	"math"

	"github.com/wasmstream/wasmstream/conformance/operators/go/internal/refparse"
	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
)

// State, scoped by the host to the account of the current record.
var (
	// total is i64le(running total).
	total = wasmstream.NewValueState("total", wasmstream.Int64Codec)
	// seen has the entry "seen\x00<event>" = 0x01 per accepted event id.
	seen = wasmstream.NewMapState[string]("seen", wasmstream.BytesCodec)
)

// accepted is the value of a seen entry.
var accepted = []byte{0x01}

// errRecord is wrapped by every reason counter refuses a record.
var errRecord = errors.New("counter: record refused")

// counter keeps a running total per account.
type counter struct {
	cfg refparse.CounterConfig
	out []byte // output value, reused
}

// Init accepts an empty config or {"max_cents":N}, N >= 0 (0: no limit).
func (c *counter) Init(b []byte) error {
	cfg, err := refparse.ParseCounterConfig(b)
	c.cfg = cfg
	return err
}

// Process adds a payment to its account's total unless its event id was
// seen before, and emits the new total.
func (c *counter) Process(r *wasmstream.Record) error {
	p, err := c.payment(r)
	if err != nil {
		return err
	}
	_, dup, err := seen.Get(p.Event)
	if err != nil {
		return err
	}
	if dup {
		wasmstream.Debugf("counter: duplicate event %s for account %s ignored", p.Event, p.Account)
		return nil
	}
	return c.accept(r, p)
}

// payment parses and checks the record: every record error of rule 1.
func (c *counter) payment(r *wasmstream.Record) (refparse.Payment, error) {
	p, err := refparse.ParsePayment(r.Value)
	if err == nil {
		err = refparse.CheckPayment(p, c.cfg.MaxCents)
	}
	if err == nil && p.Account != string(r.Key) {
		err = fmt.Errorf("event %s: account %q differs from the record key %q", p.Event, p.Account, r.Key)
	}
	if err != nil {
		return p, fmt.Errorf("%w: %w", errRecord, err)
	}
	return p, nil
}

// accept adds p to the total, remembers its event id and emits the result.
func (c *counter) accept(r *wasmstream.Record, p refparse.Payment) error {
	sum, _, err := total.Get()
	if err != nil {
		return err
	}
	if p.Cents > math.MaxInt64-sum {
		// OPERATORS.md is silent on overflow; refusing the record keeps the
		// stored total meaningful.
		return fmt.Errorf("%w: event %s: the total of account %s would overflow", errRecord, p.Event, p.Account)
	}
	sum += p.Cents
	if err := total.Put(sum); err != nil {
		return err
	}
	if err := seen.Put(p.Event, accepted); err != nil {
		return err
	}
	c.out = refparse.AppendCounterResult(c.out[:0], p, sum)
	return wasmstream.Emit("out", r.Key, c.out, wasmstream.Header{Name: "event-id", Value: p.Event})
}
