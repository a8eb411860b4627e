package global

import "errors"

// Sentinel errors. Every error of the package wraps one of them and names
// the checkpoint, worker, operator or object concerned.
var (
	// ErrCorrupt: bytes that are not what EncodeAck or EncodeManifest
	// writes (not JSON, unknown fields, a broken rule, a checksum
	// mismatch), or a task manifest that is not the one referenced.
	// Restore from another checkpoint.
	ErrCorrupt = errors.New("cluster checkpoint: corrupt record")
	// ErrIncompatible: a record written in a format this build does not
	// read. Use the wasmstream version that wrote it.
	ErrIncompatible = errors.New("cluster checkpoint: incompatible format")
	// ErrInvalid: an argument the package cannot use (an ack or manifest
	// built in memory that breaks a rule, a task not in the checkpoint).
	ErrInvalid = errors.New("cluster checkpoint: invalid argument")
	// ErrStale: an ack of another checkpoint, coordinator generation or
	// assignment epoch than the one being assembled. A coordinator drops
	// it (a zombie worker's or a lost round's report, design §5.3).
	ErrStale = errors.New("cluster checkpoint: ack of another checkpoint, generation or assignment")
	// ErrConflict: two acks disagree on what must be one fact: an
	// operator's module and layout, a source's stream, a worker's identity.
	ErrConflict = errors.New("cluster checkpoint: acks disagree")
	// ErrNotCovered: the task parts of an operator leave key groups
	// without state or give some twice. The checkpoint cannot complete.
	ErrNotCovered = errors.New("cluster checkpoint: task ranges do not partition the key groups")
)
