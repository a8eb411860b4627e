package refparse

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// ErrPayment is wrapped by every reason a value is not a payment.
var ErrPayment = errors.New("not a payment")

// ErrRefused is wrapped by every reason CheckPayment refuses a payment.
var ErrRefused = errors.New("payment refused")

// Payment is the input of counter and of join's input 0.
type Payment struct {
	Account string
	Event   string
	Cents   int64
}

// ParsePayment parses a flat JSON object with string "account", string
// "event" and integer "cents". Other fields of the subset are ignored.
// CheckPayment applies the rules on the values.
func ParsePayment(b []byte) (Payment, error) {
	fields, err := ParseObject(b)
	if err != nil {
		return Payment{}, fmt.Errorf("%w: %w", ErrPayment, err)
	}
	var p Payment
	var have [3]bool
	for _, f := range fields {
		switch f.Name {
		case "account":
			p.Account, have[0], err = f.String()
		case "event":
			p.Event, have[1], err = f.String()
		case "cents":
			p.Cents, have[2], err = f.Integer()
		}
		if err != nil {
			return Payment{}, fmt.Errorf("%w: %w", ErrPayment, err)
		}
	}
	for i, name := range []string{"account", "event", "cents"} {
		if !have[i] {
			return Payment{}, fmt.Errorf("%w: field %q is missing", ErrPayment, name)
		}
	}
	return p, nil
}

// CheckPayment applies the payment rules that counter and join share: the
// account and the event id are not empty, cents are not negative and, when
// maxCents > 0, not over it.
func CheckPayment(p Payment, maxCents int64) error {
	switch {
	case p.Account == "":
		return fmt.Errorf("%w: empty account", ErrRefused)
	case p.Event == "":
		return fmt.Errorf("%w: empty event id", ErrRefused)
	case p.Cents < 0:
		return fmt.Errorf("%w: event %s: negative cents %d", ErrRefused, p.Event, p.Cents)
	case maxCents > 0 && p.Cents > maxCents:
		return fmt.Errorf("%w: event %s: %d cents is over max_cents %d", ErrRefused, p.Event, p.Cents, maxCents)
	}
	return nil
}

// String returns the field's string value, or an error if it is an integer.
func (f Field) String() (string, bool, error) {
	if !f.IsString {
		return "", false, fmt.Errorf("field %q is an integer, want a string", f.Name)
	}
	return f.Str, true, nil
}

// Integer returns the field's integer value, or an error if it is a string.
func (f Field) Integer() (int64, bool, error) {
	if f.IsString {
		return 0, false, fmt.Errorf("field %q is a string, want an integer", f.Name)
	}
	return f.Int, true, nil
}

// AppendCounterResult appends counter's output value:
// {"account":<account>,"event":<event>,"cents":<cents>,"total":<total>},
// the strings written by AppendJSONString.
func AppendCounterResult(dst []byte, p Payment, total int64) []byte {
	dst = append(dst, `{"account":`...)
	dst = AppendJSONString(dst, p.Account)
	dst = append(dst, `,"event":`...)
	dst = AppendJSONString(dst, p.Event)
	dst = append(dst, `,"cents":`...)
	dst = strconv.AppendInt(dst, p.Cents, 10)
	dst = append(dst, `,"total":`...)
	dst = strconv.AppendInt(dst, total, 10)
	return append(dst, '}')
}

// AppendJSONString appends s, a string ParsePayment accepted (no '"', '\'
// or control character, valid UTF-8), as a JSON string written the way Go's
// encoding/json writes it, which is what payment-risk emits and therefore
// what OPERATORS.md requires: '<', '>' and '&' become \u003c, \u003e and
// \u0026, U+2028 and U+2029 become \u2028 and \u2029, the rest is copied.
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for _, r := range s {
		switch r {
		case '<':
			dst = append(dst, `\u003c`...)
		case '>':
			dst = append(dst, `\u003e`...)
		case '&':
			dst = append(dst, `\u0026`...)
		case '\u2028':
			dst = append(dst, `\u2028`...)
		case '\u2029':
			dst = append(dst, `\u2029`...)
		default:
			dst = utf8.AppendRune(dst, r)
		}
	}
	return append(dst, '"')
}
