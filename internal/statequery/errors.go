package statequery

import "errors"

// Sentinel errors; the returned errors wrap them with the object they are
// about and what the user can do.
var (
	// ErrNoCheckpoint: the data dir holds no checkpoint that verifies, or
	// not the one asked for.
	ErrNoCheckpoint = errors.New("no checkpoint to read")
	// ErrUnknownOperator: the checkpoint holds no operator of that name.
	ErrUnknownOperator = errors.New("unknown operator")
	// ErrKeyNotFound: the operator holds no state for the key (or not the
	// state asked for).
	ErrKeyNotFound = errors.New("key not found")
)
