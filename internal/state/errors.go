package state

import "errors"

// Sentinel errors. Every error this package returns wraps one of them, so a
// caller can branch with errors.Is while the message names the object.
var (
	// ErrInvalidOptions: an Options or BackendOptions field is out of range.
	ErrInvalidOptions = errors.New("state: invalid options")
	// ErrFormatTooNew: the data dir was written by a newer state format than
	// this build reads. Upgrade wasmstream; never downgrade over live state.
	ErrFormatTooNew = errors.New("state: state format is newer than this build")
	// ErrFormatUnsupported: the data dir holds an older state format that this
	// build cannot read.
	ErrFormatUnsupported = errors.New("state: state format is not supported")
	// ErrNotStateStore: the data dir holds data but no state format version.
	ErrNotStateStore = errors.New("state: data dir is not a wasmstream state store")
	// ErrCorrupt: bytes read from the store do not follow FORMAT.md.
	ErrCorrupt = errors.New("state: corrupt state data")
	// ErrKeyOutOfRange: the record key belongs to a key group that the task
	// does not own; the record was routed to the wrong task.
	ErrKeyOutOfRange = errors.New("state: key outside the task's key-group range")
	// ErrKeyTooLarge: a record key is longer than MaxKeyLen.
	ErrKeyTooLarge = errors.New("state: key too large")
	// ErrNoCurrentKey: a state call came before SetCurrentKey or after
	// ClearCurrentKey; state is only reachable for the current record's key.
	ErrNoCurrentKey = errors.New("state: no current key")
	// ErrInvalidName: a state or metadata name is empty, too long or reserved.
	ErrInvalidName = errors.New("state: invalid name")
	// ErrValueTooLarge: a value is longer than the backend's MaxValueLen.
	ErrValueTooLarge = errors.New("state: value too large")
	// ErrInBatch: the call is not allowed while a guest batch is open
	// (flushing then would persist writes that may still be rolled back).
	ErrInBatch = errors.New("state: guest batch is open")
	// ErrRangeInUse: another open backend of the same operator owns an
	// overlapping key-group range; two owners would lose each other's writes.
	ErrRangeInUse = errors.New("state: key-group range already owned")
	// ErrFlushPending: a flush began (BeginFlush) while the previous
	// incremental flush had not ended (EndFlush).
	ErrFlushPending = errors.New("state: incremental flush in progress")
	// ErrClosed: the backend was closed.
	ErrClosed = errors.New("state: backend closed")
)
