package refparse

import (
	"errors"
	"fmt"
)

// MaxDigits is the most digits a decimal integer may have: 18 digits always
// fit an int64, so no implementation needs overflow checks beyond that.
const MaxDigits = 18

// ErrDecimal is wrapped by every reason a value is not a decimal integer.
var ErrDecimal = errors.New("not a decimal integer")

// ParseDecimal parses a decimal integer as OPERATORS.md defines it: ASCII
// digits with an optional leading '-', no '+', no leading zeros except "0"
// itself, at most MaxDigits digits, nothing before or after.
func ParseDecimal(b []byte) (int64, error) {
	digits := b
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		digits = b[1:]
	}
	if err := checkDigits(digits); err != nil {
		return 0, fmt.Errorf("%w: %q %v", ErrDecimal, b, err)
	}
	var n int64
	for _, c := range digits {
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, nil
}

func checkDigits(d []byte) error {
	switch {
	case len(d) == 0:
		return errors.New("has no digits")
	case len(d) > MaxDigits:
		return fmt.Errorf("has %d digits, at most %d are allowed", len(d), MaxDigits)
	case d[0] == '0' && len(d) > 1:
		return errors.New("has a leading zero")
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return fmt.Errorf("contains %q", c)
		}
	}
	return nil
}
