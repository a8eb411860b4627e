package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
)

// State, scoped by the host to the account of the current record.
var (
	// limitCents is the account's current limit; absent until the first
	// limit update.
	limitCents = wasmstream.NewValueState("limit", wasmstream.Int64Codec)
	// spentCents is the sum of the account's approved payments.
	spentCents = wasmstream.NewValueState("spent", wasmstream.Int64Codec)
	// seen holds the payment ids already decided for the account, whatever
	// the decision, so a redelivery never gets a second decision.
	seen = wasmstream.NewMapState[string]("seen", wasmstream.BoolCodec)
)

// The operator's inputs, in the order of the pipeline's inputs list.
const (
	inputLimits   = 0
	inputPayments = 1
)

// outputDecisions is the output name the pipeline wires to a sink.
const outputDecisions = "decisions"

// errConfig is returned by Init for a config the operator does not take.
var errConfig = errors.New("payment-limits config")

// limitsOperator checks payments against per-account limits.
type limitsOperator struct{}

// Init refuses any config, so that a setting meant for this operator is not
// silently ignored.
func (*limitsOperator) Init(b []byte) error {
	if len(bytes.TrimSpace(b)) != 0 {
		return fmt.Errorf("%w: the operator takes no config; remove config from its operator block", errConfig)
	}
	return nil
}

// Process dispatches on the input the record arrived on.
func (*limitsOperator) Process(r *wasmstream.Record) error {
	switch r.Input {
	case inputLimits:
		return setLimit(r)
	case inputPayments:
		return decidePayment(r)
	}
	return fmt.Errorf("%w: input %d: the operator has inputs 0 (limit updates) and 1 (payments); check the operator's inputs list",
		errBadRecord, r.Input)
}

// setLimit stores the account's new limit. It emits nothing: decisions
// already made stand, and the spent total is kept.
func setLimit(r *wasmstream.Record) error {
	u, err := parseLimit(r.Value)
	if err != nil {
		return err
	}
	if err := checkKey("limit update", u.Account, r.Key); err != nil {
		return err
	}
	return limitCents.Put(*u.LimitCents)
}

// decidePayment decides a payment once, however often it is delivered, and
// emits the decision.
func decidePayment(r *wasmstream.Record) error {
	p, err := parsePayment(r.Value)
	if err != nil {
		return err
	}
	if err := checkKey("payment "+p.ID, p.Account, r.Key); err != nil {
		return err
	}
	dup, _, err := seen.Get(p.ID)
	if err != nil {
		return err
	}
	if dup {
		wasmstream.Debugf("duplicate payment %s for account %s ignored", p.ID, p.Account)
		return nil
	}
	res, err := judge(p)
	if err != nil {
		return err
	}
	if err := seen.Put(p.ID, true); err != nil {
		return err
	}
	out, err := json.Marshal(res)
	if err != nil {
		return err
	}
	return wasmstream.Emit(outputDecisions, []byte(p.Account), out, wasmstream.Header{Name: "payment-id", Value: p.ID})
}

// judge reads the account's limit and spent total, decides p and stores
// the new spent total when it changed.
func judge(p payment) (result, error) {
	limit, known, err := limitCents.Get()
	if err != nil {
		return result{}, err
	}
	spent, _, err := spentCents.Get()
	if err != nil {
		return result{}, err
	}
	d, after := decide(*p.AmountCents, spent, limit, known)
	if after != spent {
		if err := spentCents.Put(after); err != nil {
			return result{}, err
		}
	}
	return result{ID: p.ID, Account: p.Account, AmountCents: *p.AmountCents, SpentCents: after, LimitCents: limit, Decision: d}, nil
}
