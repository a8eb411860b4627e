package main

import (
	"errors"
	"fmt"

	"github.com/wasmstream/wasmstream/conformance/operators/go/internal/refparse"
	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
)

// total is the key's running total as {"total":N}: version 2 of the state.
var total = wasmstream.NewValueState("total", wasmstream.BytesCodec).
	Declare(wasmstream.StateOptions{Version: 2, Migrate: migrateTotal})

// errNegative: ledger2's totals are never negative.
var errNegative = errors.New("ledger2: a total cannot be negative")

// migrateTotal converts a version-1 total (decimal text): zero is
// deleted, a negative total fails the upgrade.
func migrateTotal(_ []byte, fromVersion int32, old []byte) ([]byte, bool, error) {
	if fromVersion != 1 {
		return nil, false, fmt.Errorf("ledger2: no migration from version %d", fromVersion)
	}
	n, err := refparse.ParseDecimal(old)
	switch {
	case err != nil:
		return nil, false, err
	case n < 0:
		return nil, false, fmt.Errorf("%w: version 1 holds %d", errNegative, n)
	case n == 0:
		return nil, false, nil
	}
	return refparse.AppendLedgerTotal(nil, n), true, nil
}

// ledger adds each record's amount to its key's total.
type ledger struct {
	out []byte // encoded total, reused
}

// Init ignores the config.
func (*ledger) Init([]byte) error { return nil }

// Process adds the amount, stores the total and emits it.
func (l *ledger) Process(r *wasmstream.Record) error {
	amount, err := refparse.ParseDecimal(r.Value)
	if err != nil {
		return err
	}
	stored, found, err := total.Get()
	if err != nil {
		return err
	}
	var sum int64
	if found {
		if sum, err = refparse.ParseLedgerTotal(stored); err != nil {
			return err
		}
	}
	if sum+amount < 0 {
		return fmt.Errorf("%w: %d%+d", errNegative, sum, amount)
	}
	l.out = refparse.AppendLedgerTotal(l.out[:0], sum+amount)
	if err := total.Put(l.out); err != nil {
		return err
	}
	return wasmstream.Emit("out", r.Key, l.out)
}
