package main

import (
	"encoding/json"
	"errors"
	"fmt"
)

// payment is one payment, as it arrives.
type payment struct {
	Event    string `json:"event"`
	Account  string `json:"account"`
	Merchant string `json:"merchant"`
	Region   string `json:"region"`
	Cents    *int64 `json:"cents"` // a pointer tells a missing amount from 0
}

// errBadPayment is wrapped by every reason to reject a record.
var errBadPayment = errors.New("bad payment event")

// parsePayment decodes and validates one record value.
func parsePayment(value []byte) (payment, error) {
	var p payment
	if err := json.Unmarshal(value, &p); err != nil {
		return p, fmt.Errorf("%w: not valid JSON: %v", errBadPayment, err)
	}
	switch {
	case p.Event == "":
		return p, fmt.Errorf("%w: missing event id", errBadPayment)
	case p.Account == "" || p.Merchant == "" || p.Region == "":
		return p, fmt.Errorf("%w: event %s: account, merchant and region are required", errBadPayment, p.Event)
	case p.Cents == nil:
		return p, fmt.Errorf("%w: event %s: missing cents", errBadPayment, p.Event)
	case *p.Cents < 0:
		return p, fmt.Errorf("%w: event %s: negative cents %d", errBadPayment, p.Event, *p.Cents)
	}
	return p, nil
}

// scored is what the operator emits for an accepted payment: the payment,
// the account's total after it and whether that total is flagged (1 or 0).
type scored struct {
	Event    string `json:"event"`
	Account  string `json:"account"`
	Merchant string `json:"merchant"`
	Region   string `json:"region"`
	Cents    int64  `json:"cents"`
	Total    int64  `json:"total"`
	Flagged  int64  `json:"flagged"`
}
