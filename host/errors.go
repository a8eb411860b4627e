package host

import (
	"errors"
	"fmt"

	"github.com/wasmstream/wasmstream/abi"
)

// Sentinel errors. Every error returned by this package wraps exactly one of
// them, so callers decide with errors.Is.
var (
	// ErrInvalidModule: the bytes are not a WebAssembly module wazero can compile.
	ErrInvalidModule = errors.New("invalid WebAssembly module")
	// ErrModuleLimit: the module is over one of the ModuleLimits (functions,
	// locals, code bytes, section entries, table size); it is refused
	// before wazero decodes it.
	ErrModuleLimit = errors.New("module over a host limit")
	// ErrMissingExport: a required export is absent or has the wrong signature.
	ErrMissingExport = errors.New("missing or mistyped export")
	// ErrUnknownImport: the module imports something the host does not provide.
	ErrUnknownImport = errors.New("unknown import")
	// ErrABIVersion: the guest was built for another ABI version.
	ErrABIVersion = errors.New("ABI version mismatch")
	// ErrInit: ws_init failed (returned an error code or trapped).
	ErrInit = errors.New("operator init failed")
	// ErrTrap: the guest trapped (unreachable, panic, out-of-bounds access...).
	ErrTrap = errors.New("guest trapped")
	// ErrTimeout: a guest call ran past its deadline and was stopped.
	ErrTimeout = errors.New("guest call exceeded its deadline")
	// ErrMemoryLimit: the guest ran out of memory at the operator's page limit.
	ErrMemoryLimit = errors.New("guest exceeded its memory limit")
	// ErrABIMisuse: the guest called a host function wrongly (bad pointer,
	// no current record, re-entrancy...).
	ErrABIMisuse = errors.New("guest misused the ABI")
	// ErrRecordFailed: the guest reported that the current record failed.
	ErrRecordFailed = errors.New("guest rejected a record")
	// ErrOutputRefused: the guest processed the record, but the caller's
	// OutputCheck refused one of its outputs (one the host cannot deliver,
	// e.g. over the server's max payload). Like ErrRecordFailed, the
	// record's state writes are rolled back and the instance is kept.
	ErrOutputRefused = errors.New("host cannot deliver an output of the record")
	// ErrInstanceClosed: the instance was discarded after an earlier fault.
	ErrInstanceClosed = errors.New("instance is closed")
)

// GuestError describes a failed guest call. Kind is one of the sentinels
// above; Record is the index within the batch of the record the guest was
// processing when it failed, or -1 when no record was current.
type GuestError struct {
	Kind     error
	Operator string
	Record   int
	Code     abi.Code // the ABI code involved, if any
	Func     string   // the host function or export involved, if any
	Detail   string
	Cause    error // the underlying wazero error, if any
}

func (e *GuestError) Error() string {
	msg := fmt.Sprintf("operator %q: %v", e.Operator, e.Kind)
	if e.Func != "" {
		msg += " in " + e.Func
	}
	if e.Code != abi.OK {
		msg += fmt.Sprintf(" (%s)", e.Code)
	}
	if e.Record >= 0 {
		msg += fmt.Sprintf(" at batch record %d", e.Record)
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Unwrap exposes Kind and Cause to errors.Is / errors.As.
func (e *GuestError) Unwrap() []error {
	if e.Cause == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Cause}
}

// Deterministic reports whether running the same record again on a fresh
// instance is expected to fail the same way, so the record can be isolated.
// Every guest fault is treated as deterministic except a timeout, which the
// engine still isolates but labels differently.
func (e *GuestError) Deterministic() bool {
	return !errors.Is(e.Kind, ErrTimeout)
}

// misuse is raised (via panic) inside a host function to abort the guest
// call; the instance turns it into a GuestError after the call unwinds.
type misuse struct {
	code abi.Code
	fn   string
	msg  string
}

func (m *misuse) Error() string { return m.fn + ": " + m.code.String() + ": " + m.msg }
