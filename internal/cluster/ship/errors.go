package ship

import "errors"

// Sentinel errors. Every error of the package wraps one of them, and its
// message names the bucket, object or file concerned and what to do.
var (
	// ErrInvalid: an argument the package cannot use (a task, a range,
	// options). It is a programming or configuration error.
	ErrInvalid = errors.New("ship: invalid argument")
	// ErrCorruptManifest: a task manifest is not what Encode writes (not
	// JSON, unknown fields, a failed rule, a checksum mismatch). Restore
	// from another checkpoint.
	ErrCorruptManifest = errors.New("ship: corrupt task manifest")
	// ErrIncompatible: a task manifest or its state was written in a format
	// this build does not read. Use the wasmstream version that wrote it.
	ErrIncompatible = errors.New("ship: incompatible format")
	// ErrDamaged: an object's bytes do not hash to the SHA-256 its manifest
	// and its name give, or a local file changed while it was uploaded.
	// The object must not be used; restore from another checkpoint, or
	// re-upload from a worker that still has the file.
	ErrDamaged = errors.New("ship: damaged object")
	// ErrMissingObject: an object a manifest references is not in the
	// bucket (deleted by hand or by a wrong GC).
	ErrMissingObject = errors.New("ship: missing object")
	// ErrNotCovered: the task manifests given to Restore leave key groups
	// of the requested range without state, or give some twice.
	ErrNotCovered = errors.New("ship: range not covered by the task manifests")
	// ErrTargetNotEmpty: the live DB already holds state in the range a
	// Restore would write. Delete the released span first, or set Replace.
	ErrTargetNotEmpty = errors.New("ship: target range is not empty")
	// ErrObjectStore: the Object Store failed (an outage, a timeout). The
	// operation can be retried as it is: uploads are content-addressed.
	ErrObjectStore = errors.New("ship: object store failed")
)
