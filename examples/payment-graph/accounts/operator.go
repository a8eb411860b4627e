package main

import (
	"encoding/json"
	"fmt"
	"math"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
)

// State, scoped by the host to the account of the current record.
var (
	// total is the account's running total in cents.
	total = wasmstream.NewValueState("total", wasmstream.Int64Codec)
	// seen holds the event ids already counted for the account.
	seen = wasmstream.NewMapState[string]("seen", wasmstream.BoolCodec)
)

// accountsOperator keeps running totals per account.
type accountsOperator struct {
	cfg config
}

// Init reads the optional config.
func (o *accountsOperator) Init(b []byte) error {
	cfg, err := parseConfig(b)
	o.cfg = cfg
	return err
}

// Process adds a payment to its account's total once, however often it is
// delivered, and emits it scored.
func (o *accountsOperator) Process(r *wasmstream.Record) error {
	p, err := parsePayment(r.Value)
	if err != nil {
		return err
	}
	if p.Account != string(r.Key) {
		// State is scoped by the record key: a total kept under another key
		// would be wrong without any error, so refuse the record.
		return fmt.Errorf("%w: event %s: account %q does not match the record key %q",
			errBadPayment, p.Event, p.Account, r.Key)
	}
	dup, _, err := seen.Get(p.Event)
	if err != nil {
		return err
	}
	if dup {
		wasmstream.Debugf("duplicate event %s for account %s ignored", p.Event, p.Account)
		return nil
	}
	return o.accept(p)
}

// accept adds p to the total, remembers its id and emits it scored.
func (o *accountsOperator) accept(p payment) error {
	sum, _, err := total.Get()
	if err != nil {
		return err
	}
	if *p.Cents > math.MaxInt64-sum {
		return fmt.Errorf("%w: event %s: total of account %s would overflow", errBadPayment, p.Event, p.Account)
	}
	sum += *p.Cents
	if err := total.Put(sum); err != nil {
		return err
	}
	if err := seen.Put(p.Event, true); err != nil {
		return err
	}
	out, err := json.Marshal(scored{Event: p.Event, Account: p.Account, Merchant: p.Merchant, Region: p.Region,
		Cents: *p.Cents, Total: sum, Flagged: o.cfg.flagged(sum)})
	if err != nil {
		return err
	}
	return wasmstream.Emit("scored", []byte(p.Account), out)
}
