package clusterckpt

import "errors"

var (
	// ErrNotCluster: the pipeline has no cluster block; its checkpoints
	// are in its data dir (package checkpoint).
	ErrNotCluster = errors.New("not a cluster pipeline")
	// ErrNoCheckpoint: no cluster checkpoint completed yet: the workers
	// never ran, or never completed one.
	ErrNoCheckpoint = errors.New("no cluster checkpoint completed yet")
	// ErrNotFound: the requested cluster checkpoint has no completion
	// record: it never completed (an aborted claim) or does not exist.
	ErrNotFound = errors.New("cluster checkpoint not found")
)
