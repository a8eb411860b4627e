package modref

import "errors"

// Reference errors: ParseRef, ValidateName and Ref.ValidateRegistry return an
// error that wraps one of them, so callers decide with errors.Is.
var (
	// ErrName: an operator name outside 1..64 of [A-Za-z0-9_-].
	ErrName = errors.New("invalid operator name")
	// ErrRef: a string that is neither a local path nor NAME[@HASH].
	ErrRef = errors.New("invalid operator reference")
	// ErrLocalRef: a registry operation was given a local path.
	ErrLocalRef = errors.New("local path given where a registry reference is needed")
)
