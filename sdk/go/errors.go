package wasmstream

import (
	"errors"
	"strconv"

	"github.com/wasmstream/wasmstream/abi"
)

// Sentinel errors, one per host code of the ABI registry (package abi).
// Every host-call error of this package wraps one of them; test with
// errors.Is. ErrBadPointer, ErrNoRecord and ErrReentrant are fatal: the
// host aborts the guest call instead of returning them, so a guest never
// sees them; they exist so that the registry is mirrored in full.
var (
	// ErrNotFound: no state value. State getters report it as found=false,
	// never as an error; it is exported for completeness of the registry.
	ErrNotFound = errors.New("wasmstream: not found (NOT_FOUND)")
	// ErrBadPointer: the host saw a pointer outside guest memory.
	ErrBadPointer = errors.New("wasmstream: pointer outside guest memory (BAD_POINTER)")
	// ErrBadArgument: a state or output name is empty or too long, or
	// headers are malformed.
	ErrBadArgument = errors.New("wasmstream: bad argument (BAD_ARGUMENT)")
	// ErrNoRecord: a state, emit or event-time call outside Process.
	ErrNoRecord = errors.New("wasmstream: state or emit call outside Process (NO_RECORD)")
	// ErrTooLarge: a state value, or an emitted key, value or header list,
	// is over the operator's limit (limits.max_value_bytes, 1 MiB by
	// default); keep values smaller or raise the limit in the pipeline config.
	ErrTooLarge = errors.New("wasmstream: value over the operator's size limit (TOO_LARGE)")
	// ErrUnknownOutput: Emit named an output that the pipeline config does
	// not wire to a sink.
	ErrUnknownOutput = errors.New("wasmstream: output not wired in the pipeline config (UNKNOWN_OUTPUT)")
	// ErrQuotaExceeded: the current record already emitted as many records
	// as the pipeline allows per input record (limits.max_emits_per_record,
	// 64 by default).
	ErrQuotaExceeded = errors.New("wasmstream: emit quota of the record exceeded (QUOTA_EXCEEDED)")
	// ErrReentrant: a host function was called while the host was already
	// inside a call of this instance.
	ErrReentrant = errors.New("wasmstream: reentrant host call (REENTRANT)")
	// ErrUnknownCode: the host returned a negative code this SDK does not
	// know; the host is probably newer than the SDK.
	ErrUnknownCode = errors.New("wasmstream: unknown error code from the host")
)

// codeSentinels maps each host-side code to its sentinel.
var codeSentinels = map[abi.Code]error{
	abi.ErrNotFound:      ErrNotFound,
	abi.ErrBadPointer:    ErrBadPointer,
	abi.ErrBadArgument:   ErrBadArgument,
	abi.ErrNoRecord:      ErrNoRecord,
	abi.ErrTooLarge:      ErrTooLarge,
	abi.ErrUnknownOutput: ErrUnknownOutput,
	abi.ErrQuotaExceeded: ErrQuotaExceeded,
	abi.ErrReentrant:     ErrReentrant,
}

// codeError returns the sentinel for a negative code, wrapping
// ErrUnknownCode with the number for codes outside the registry.
func codeError(c abi.Code) error {
	if err, ok := codeSentinels[c]; ok {
		return err
	}
	return &unknownCodeError{code: c}
}

type unknownCodeError struct{ code abi.Code }

func (e *unknownCodeError) Error() string {
	return ErrUnknownCode.Error() + " " + e.code.String()
}

func (e *unknownCodeError) Unwrap() error { return ErrUnknownCode }

// OpError is the error of a failed host call. It names the operation and
// the object (a state name, an output name) and wraps a sentinel above.
type OpError struct {
	Op   string // "state get", "state put", "state delete", "emit", "decode"...
	Name string // state name (map entries: "name[key]") or output name
	Err  error
}

// Error returns e.g. `wasmstream: state put "total": wasmstream: value over...`.
func (e *OpError) Error() string {
	return "wasmstream: " + e.Op + " " + strconv.Quote(e.Name) + ": " + e.Err.Error()
}

// Unwrap returns the wrapped error, for errors.Is and errors.As.
func (e *OpError) Unwrap() error { return e.Err }

func opError(op, name string, err error) error {
	return &OpError{Op: op, Name: name, Err: err}
}

// wrapOp is opError that keeps nil as nil.
func wrapOp(op, name string, err error) error {
	if err == nil {
		return nil
	}
	return opError(op, name, err)
}

// detailError adds a detail to a sentinel: "<sentinel>: <msg>".
type detailError struct {
	kind error
	msg  string
}

func (e *detailError) Error() string { return e.kind.Error() + ": " + e.msg }

func (e *detailError) Unwrap() error { return e.kind }
