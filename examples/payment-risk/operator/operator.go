package main

import (
	"encoding/json"
	"fmt"
	"math"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
)

// State, scoped by the host to the account of the current record.
var (
	// total is the account's running total in cents (release.go: its
	// encoding depends on the release).
	total = totalState
	// seen holds the event ids already counted for the account.
	seen = wasmstream.NewMapState[string]("seen", wasmstream.BoolCodec)
)

// riskOperator keeps running totals per account.
type riskOperator struct {
	cfg config
}

// Init reads the optional config.
func (o *riskOperator) Init(b []byte) error {
	cfg, err := parseConfig(b)
	if err != nil {
		return err
	}
	o.cfg = cfg
	return nil
}

// Process adds an event to its account's total once, however often it is
// delivered, and emits the new total.
func (o *riskOperator) Process(r *wasmstream.Record) error {
	ev, err := parseEvent(r.Value, o.cfg.MaxCents)
	if err != nil {
		return err
	}
	if ev.Account != string(r.Key) {
		// State is scoped by the record key: a total kept under another key
		// would be wrong without any error, so refuse the record.
		return fmt.Errorf("%w: event %s: account %q does not match the record key %q",
			errBadEvent, ev.Event, ev.Account, r.Key)
	}
	dup, _, err := seen.Get(ev.Event)
	if err != nil {
		return err
	}
	if dup {
		wasmstream.Debugf("duplicate event %s for account %s ignored", ev.Event, ev.Account)
		return nil
	}
	return o.accept(ev)
}

// accept adds ev to the total, remembers its id and emits the result.
func (o *riskOperator) accept(ev event) error {
	sum, _, err := total.Get()
	if err != nil {
		return err
	}
	if *ev.Cents > math.MaxInt64-sum {
		return fmt.Errorf("%w: event %s: total of account %s would overflow", errBadEvent, ev.Event, ev.Account)
	}
	sum += *ev.Cents
	if err := total.Put(sum); err != nil {
		return err
	}
	if err := seen.Put(ev.Event, true); err != nil {
		return err
	}
	out, err := json.Marshal(result{Account: ev.Account, Event: ev.Event, Cents: *ev.Cents, Total: sum})
	if err != nil {
		return err
	}
	return wasmstream.Emit("out", []byte(ev.Account), out, wasmstream.Header{Name: "event-id", Value: ev.Event})
}
