package refparse

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// ErrLedgerTotal is wrapped when a stored ledger2 total is not
// {"total":N} exactly.
var ErrLedgerTotal = errors.New(`not a ledger total {"total":N}`)

// ledgerPrefix and ledgerSuffix enclose N in ledger2's encoding of a total.
const ledgerPrefix, ledgerSuffix = `{"total":`, `}`

// AppendLedgerTotal appends ledger2's encoding of total: {"total":N}.
func AppendLedgerTotal(dst []byte, total int64) []byte {
	dst = append(dst, ledgerPrefix...)
	dst = strconv.AppendInt(dst, total, 10)
	return append(dst, ledgerSuffix...)
}

// ParseLedgerTotal reads ledger2's encoding of a total.
func ParseLedgerTotal(b []byte) (int64, error) {
	digits, ok := bytes.CutPrefix(b, []byte(ledgerPrefix))
	if ok {
		digits, ok = bytes.CutSuffix(digits, []byte(ledgerSuffix))
	}
	if !ok {
		return 0, fmt.Errorf("%w: %q", ErrLedgerTotal, b)
	}
	n, err := ParseDecimal(digits)
	if err != nil {
		return 0, fmt.Errorf("%w: %q: %v", ErrLedgerTotal, b, err)
	}
	return n, nil
}
