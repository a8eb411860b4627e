package assign

import "errors"

// Sentinel errors, wrapped with %w by every function of the package.
var (
	// ErrNoWorkers: Plan was given no live worker to run the tasks on.
	// The coordinator keeps the previous assignment and waits for one.
	ErrNoWorkers = errors.New("no live workers")
	// ErrInput: an operator or worker list Plan cannot use (a name missing
	// or repeated, a parallelism outside 1..max_parallelism, a
	// max_parallelism that differs from the previous assignment's).
	ErrInput = errors.New("invalid assignment input")
	// ErrStale: Plan was stamped with a generation or a restore checkpoint
	// older than the previous assignment's, which only a coordinator that
	// lost its lease, or reads that went back in time, would produce.
	ErrStale = errors.New("stale assignment stamp")
	// ErrAssignment: an assignment that breaks its rules: decoded from
	// bytes another client wrote, or built by hand.
	ErrAssignment = errors.New("invalid assignment")
)
