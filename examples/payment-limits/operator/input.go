package main

import (
	"encoding/json"
	"errors"
	"fmt"
)

// limitUpdate is a record of input 0: an account's new spending limit.
type limitUpdate struct {
	Account    string `json:"account"`
	LimitCents *int64 `json:"limit_cents"` // a pointer tells a missing limit from 0
}

// payment is a record of input 1.
type payment struct {
	ID          string `json:"id"`
	Account     string `json:"account"`
	AmountCents *int64 `json:"amount_cents"` // a pointer tells a missing amount from 0
}

// errBadRecord is wrapped by every reason to reject a record.
var errBadRecord = errors.New("bad record")

// parseLimit decodes and validates a record value of input 0.
func parseLimit(value []byte) (limitUpdate, error) {
	var u limitUpdate
	if err := json.Unmarshal(value, &u); err != nil {
		return u, fmt.Errorf("%w: limit update: not valid JSON: %v", errBadRecord, err)
	}
	switch {
	case u.Account == "":
		return u, fmt.Errorf("%w: limit update: missing account", errBadRecord)
	case u.LimitCents == nil:
		return u, fmt.Errorf("%w: limit update for account %s: missing limit_cents", errBadRecord, u.Account)
	case *u.LimitCents < 0:
		return u, fmt.Errorf("%w: limit update for account %s: negative limit_cents %d", errBadRecord, u.Account, *u.LimitCents)
	}
	return u, nil
}

// parsePayment decodes and validates a record value of input 1.
func parsePayment(value []byte) (payment, error) {
	var p payment
	if err := json.Unmarshal(value, &p); err != nil {
		return p, fmt.Errorf("%w: payment: not valid JSON: %v", errBadRecord, err)
	}
	switch {
	case p.ID == "":
		return p, fmt.Errorf("%w: payment: missing id", errBadRecord)
	case p.Account == "":
		return p, fmt.Errorf("%w: payment %s: missing account", errBadRecord, p.ID)
	case p.AmountCents == nil:
		return p, fmt.Errorf("%w: payment %s: missing amount_cents", errBadRecord, p.ID)
	case *p.AmountCents < 0:
		return p, fmt.Errorf("%w: payment %s: negative amount_cents %d", errBadRecord, p.ID, *p.AmountCents)
	}
	return p, nil
}

// checkKey refuses a record whose account is not the record key: state is
// scoped by the key, so a limit or total kept under another account would be
// wrong without any error.
func checkKey(what, account string, key []byte) error {
	if account != string(key) {
		return fmt.Errorf("%w: %s: account %q does not match the record key %q", errBadRecord, what, account, key)
	}
	return nil
}
