package abi

import "strconv"

// Code is a result that crosses the boundary. Zero and positive values are
// successes (a length, a flag); negative values are errors from this single
// registry, which every SDK mirrors under the same names.
type Code int32

// The error-code registry. Values never change meaning; new codes are appended.
const (
	OK Code = 0

	// Returned by host functions to the guest.

	// ErrNotFound: state_get found no value for this key and name.
	ErrNotFound Code = -1
	// ErrBadPointer: a pointer/length pair lies outside guest memory. Fatal:
	// the host aborts the batch.
	ErrBadPointer Code = -2
	// ErrBadArgument: a name is empty or over its length limit, or an emitted
	// header list is malformed. (Names are opaque bytes; unknown log levels
	// log at error.)
	ErrBadArgument Code = -3
	// ErrNoRecord: a state or emit call outside a record (in ws_init, before
	// the first record_next, or after it returned 0). Fatal.
	ErrNoRecord Code = -4
	// ErrTooLarge: a state value or an emitted key, value or header list is
	// over the operator's limit (a negative length reads as a huge one).
	ErrTooLarge Code = -5
	// ErrUnknownOutput: emit named an output the pipeline does not wire.
	ErrUnknownOutput Code = -6
	// ErrQuotaExceeded: the current record already emitted
	// limits.max_emits_per_record records.
	ErrQuotaExceeded Code = -7
	// ErrReentrant: a host function was called while the host was already
	// inside a call of that instance (for example from ws_alloc). Fatal.
	ErrReentrant Code = -8

	// Returned by the guest from ws_init / ws_process.

	// ErrGuestConfig: ws_init rejected its config bytes.
	ErrGuestConfig Code = -100
	// ErrGuestRecord: ws_process failed on the current record; the host
	// isolates that record to the dead-letter subject.
	ErrGuestRecord Code = -101
	// ErrGuestInternal: any other guest failure.
	ErrGuestInternal Code = -102
)

var codeNames = map[Code]string{
	OK:               "OK",
	ErrNotFound:      "NOT_FOUND",
	ErrBadPointer:    "BAD_POINTER",
	ErrBadArgument:   "BAD_ARGUMENT",
	ErrNoRecord:      "NO_RECORD",
	ErrTooLarge:      "TOO_LARGE",
	ErrUnknownOutput: "UNKNOWN_OUTPUT",
	ErrQuotaExceeded: "QUOTA_EXCEEDED",
	ErrReentrant:     "REENTRANT",
	ErrGuestConfig:   "GUEST_CONFIG",
	ErrGuestRecord:   "GUEST_RECORD",
	ErrGuestInternal: "GUEST_INTERNAL",
}

// String returns the registry name, e.g. "NOT_FOUND", or "CODE(-42)".
func (c Code) String() string {
	if n, ok := codeNames[c]; ok {
		return n
	}
	return "CODE(" + strconv.Itoa(int(c)) + ")"
}

// Fatal reports whether the host aborts the batch when it detects this
// misuse instead of returning the code to the guest.
func (c Code) Fatal() bool {
	return c == ErrBadPointer || c == ErrNoRecord || c == ErrReentrant
}
