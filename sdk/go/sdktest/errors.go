//go:build !wasip1

package sdktest

import (
	"errors"
	"fmt"

	"github.com/wasmstream/wasmstream/abi"
)

// Errors of a Harness. The host reacts to each differently; a test checks
// them with errors.Is.
var (
	// ErrInit: the operator's Init failed (GUEST_CONFIG) or no operator
	// was given (GUEST_INTERNAL).
	ErrInit = errors.New("sdktest: operator initialisation failed")
	// ErrInternal: the SDK returned GUEST_INTERNAL from a batch.
	ErrInternal = errors.New("sdktest: guest failed the batch (GUEST_INTERNAL)")
	// ErrTrap: the operator panicked. On the host this traps the instance.
	ErrTrap = errors.New("sdktest: operator panicked (the host would trap and discard the instance)")
	// ErrAbort: the operator misused the ABI in a way the host answers by
	// aborting the batch, e.g. a state call outside Process.
	ErrAbort = errors.New("sdktest: host aborted the batch")
)

// TrapError is the error of a panic in the operator. It wraps ErrTrap.
type TrapError struct {
	Value  any    // the panic value
	Record int    // index in the batch of the record being processed, -1 in Init
	Stack  []byte // the goroutine's stack at the panic
}

func (e *TrapError) Error() string {
	return fmt.Sprintf("%v: record %d: %v", ErrTrap, e.Record, e.Value)
}

// Unwrap returns ErrTrap.
func (e *TrapError) Unwrap() error { return ErrTrap }

// AbortError is the error of a host call the host would abort the batch
// for. It wraps ErrAbort.
type AbortError struct {
	Code abi.Code // the fatal code, e.g. abi.ErrNoRecord
	Msg  string
}

func (e *AbortError) Error() string {
	return fmt.Sprintf("%v (%v): %s", ErrAbort, e.Code, e.Msg)
}

// Unwrap returns ErrAbort.
func (e *AbortError) Unwrap() error { return ErrAbort }
