// Package worker runs one `wasmstream worker` process: it joins the
// pipeline's workers on a NATS JetStream cluster, takes part in the
// coordinator election, runs the tasks the assignment gives it with
// filter-on-read sources, ships its task checkpoints to the Object Store
// and restores the ranges it is given from the last cluster checkpoint
// (design ../../../shared/cluster.md §5).
package worker
