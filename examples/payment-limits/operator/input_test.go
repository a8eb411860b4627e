package main

import (
	"errors"
	"strings"
	"testing"
)

func TestParseLimitRejects(t *testing.T) {
	tests := []struct{ name, value, reason string }{
		{"not JSON", `{"account":`, "not valid JSON"},
		{"not an object", `[1]`, "not valid JSON"},
		{"missing account", `{"limit_cents":5}`, "missing account"},
		{"missing limit", `{"account":"a"}`, "missing limit_cents"},
		{"null limit", `{"account":"a","limit_cents":null}`, "missing limit_cents"},
		{"negative limit", `{"account":"a","limit_cents":-1}`, "negative limit_cents -1"},
		{"fractional limit", `{"account":"a","limit_cents":1.5}`, "not valid JSON"},
		{"string limit", `{"account":"a","limit_cents":"5"}`, "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseLimit([]byte(tt.value))
			if !errors.Is(err, errBadRecord) || !strings.Contains(err.Error(), tt.reason) {
				t.Fatalf("parseLimit(%s) = %v, want an errBadRecord mentioning %q", tt.value, err, tt.reason)
			}
		})
	}
}

func TestParsePaymentRejects(t *testing.T) {
	tests := []struct{ name, value, reason string }{
		{"not JSON", `{"id":`, "not valid JSON"},
		{"missing id", `{"account":"a","amount_cents":5}`, "missing id"},
		{"missing account", `{"id":"e","amount_cents":5}`, "payment e: missing account"},
		{"missing amount", `{"id":"e","account":"a"}`, "missing amount_cents"},
		{"null amount", `{"id":"e","account":"a","amount_cents":null}`, "missing amount_cents"},
		{"negative amount", `{"id":"e","account":"a","amount_cents":-5}`, "negative amount_cents -5"},
		{"fractional amount", `{"id":"e","account":"a","amount_cents":0.5}`, "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parsePayment([]byte(tt.value))
			if !errors.Is(err, errBadRecord) || !strings.Contains(err.Error(), tt.reason) {
				t.Fatalf("parsePayment(%s) = %v, want an errBadRecord mentioning %q", tt.value, err, tt.reason)
			}
		})
	}
}

func TestParseAccepts(t *testing.T) {
	u, err := parseLimit([]byte(`{"account":"acct-1","limit_cents":0,"note":"ignored"}`))
	if err != nil || u.Account != "acct-1" || *u.LimitCents != 0 {
		t.Fatalf("parseLimit: %+v, %v", u, err)
	}
	p, err := parsePayment([]byte(`{"id":"evt-1","account":"acct-1","amount_cents":1200}`))
	if err != nil || p.ID != "evt-1" || p.Account != "acct-1" || *p.AmountCents != 1200 {
		t.Fatalf("parsePayment: %+v, %v", p, err)
	}
}

func TestCheckKey(t *testing.T) {
	if err := checkKey("payment e", "a", []byte("a")); err != nil {
		t.Fatal(err)
	}
	err := checkKey("payment e", "b", []byte("a"))
	if !errors.Is(err, errBadRecord) || !strings.Contains(err.Error(), `payment e: account "b" does not match the record key "a"`) {
		t.Fatalf("checkKey = %v", err)
	}
}

// FuzzParseLimit feeds arbitrary values to the limit parser: it must never
// panic, errors wrap errBadRecord, and an accepted update is complete and
// non-negative.
func FuzzParseLimit(f *testing.F) {
	f.Add([]byte(`{"account":"acct-1","limit_cents":50000}`))
	f.Add([]byte(`{"account":"a","limit_cents":-1}`))
	f.Add([]byte(`nul`))
	f.Fuzz(func(t *testing.T, value []byte) {
		u, err := parseLimit(value)
		if err != nil {
			if !errors.Is(err, errBadRecord) {
				t.Fatalf("error %v does not wrap errBadRecord", err)
			}
			return
		}
		if u.Account == "" || u.LimitCents == nil || *u.LimitCents < 0 {
			t.Fatalf("accepted %+v from %q", u, value)
		}
	})
}

// FuzzParsePayment feeds arbitrary values to the payment parser: it must
// never panic, errors wrap errBadRecord, and an accepted payment is
// complete and non-negative.
func FuzzParsePayment(f *testing.F) {
	f.Add([]byte(`{"id":"evt-1","account":"acct-1","amount_cents":1200}`))
	f.Add([]byte(`{"id":"e","account":"a","amount_cents":-1}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, value []byte) {
		p, err := parsePayment(value)
		if err != nil {
			if !errors.Is(err, errBadRecord) {
				t.Fatalf("error %v does not wrap errBadRecord", err)
			}
			return
		}
		if p.ID == "" || p.Account == "" || p.AmountCents == nil || *p.AmountCents < 0 {
			t.Fatalf("accepted %+v from %q", p, value)
		}
	})
}
