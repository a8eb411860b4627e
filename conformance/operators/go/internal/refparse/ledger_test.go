package refparse

import (
	"errors"
	"testing"
)

func TestLedgerTotalRoundTrips(t *testing.T) {
	for _, n := range []int64{0, 7, -12, 100000000000000000} {
		b := AppendLedgerTotal(nil, n)
		got, err := ParseLedgerTotal(b)
		if err != nil || got != n {
			t.Fatalf("%s: got %d, %v, want %d", b, got, err, n)
		}
	}
}

func TestParseLedgerTotalRefuses(t *testing.T) {
	for _, s := range []string{"", "7", `{"total":}`, `{"total":07}`, `{"total": 7}`, `{"total":7} `, `{"sum":7}`} {
		if _, err := ParseLedgerTotal([]byte(s)); !errors.Is(err, ErrLedgerTotal) {
			t.Errorf("%q: %v, want ErrLedgerTotal", s, err)
		}
	}
}
