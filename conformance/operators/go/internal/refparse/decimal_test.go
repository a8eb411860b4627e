package refparse

import (
	"errors"
	"strconv"
	"testing"
)

func TestParseDecimal(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"7", 7, true},
		{"-7", -7, true},
		{"1200", 1200, true},
		{"999999999999999999", 999999999999999999, true},
		{"-999999999999999999", -999999999999999999, true},
		{"-0", 0, true}, // the grammar admits it: '-' then "0"
		{"", 0, false},
		{"-", 0, false},
		{"+7", 0, false},
		{"07", 0, false},
		{"-07", 0, false},
		{"00", 0, false},
		{"1000000000000000000", 0, false}, // 19 digits
		{"1.5", 0, false},
		{"1e3", 0, false},
		{" 7", 0, false},
		{"7 ", 0, false},
		{"0x10", 0, false},
		{"١", 0, false}, // Arabic-Indic digit one: not ASCII
	}
	for _, tt := range tests {
		got, err := ParseDecimal([]byte(tt.in))
		if tt.ok != (err == nil) || got != tt.want {
			t.Errorf("ParseDecimal(%q) = %d, %v; want %d, ok=%t", tt.in, got, err, tt.want, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrDecimal) {
			t.Errorf("ParseDecimal(%q) error %v does not wrap ErrDecimal", tt.in, err)
		}
	}
}

// Whatever ParseDecimal accepts is what strconv.ParseInt accepts, with the
// same value: the grammar is a subset of Go's.
func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"0", "-1", "123", "0123", "+1", "999999999999999999", "1000000000000000000", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := ParseDecimal(b)
		if err != nil {
			return
		}
		want, perr := strconv.ParseInt(string(b), 10, 64)
		if perr != nil || want != n {
			t.Fatalf("ParseDecimal(%q) = %d, strconv says %d, %v", b, n, want, perr)
		}
		if len(b) > MaxDigits+1 {
			t.Fatalf("ParseDecimal(%q) accepted %d bytes", b, len(b))
		}
	})
}
