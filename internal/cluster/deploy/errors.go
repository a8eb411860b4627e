package deploy

import "errors"

// Sentinel errors, wrapped with %w; the messages name the pipeline and
// what to do.
var (
	// ErrWorkersRunning: a worker holds the coordinator lease or its
	// membership lease. Stop the workers first; a killed worker's leases
	// expire after cluster.lease_ttl.
	ErrWorkersRunning = errors.New("the pipeline's workers are running")
	// ErrCheckpointsExist: the cluster has a completed checkpoint, which
	// the workers would restore; Options.Force seeds the savepoint as the
	// latest anyway.
	ErrCheckpointsExist = errors.New("the cluster already has completed checkpoints")
	// ErrMismatch: the savepoint's state does not fit the pipeline: the
	// workers would refuse to restore it. Nothing was written.
	ErrMismatch = errors.New("the savepoint does not fit the pipeline")
)
