// Package member is the membership of a cluster pipeline's workers
// (design ../../../shared/cluster.md §5.1 "Membership"): who runs, as the
// coordinator sees it.
//
// A worker joins by acquiring the lease workers.<id> in the pipeline's
// control bucket (package lease) and keeps it by renewing; it also sends a
// core-NATS heartbeat every HeartbeatInterval on
// wasmstream.<pipeline>.ctl.hb.<id>. The two signals have different jobs:
//
//   - Heartbeats are quick: the coordinator suspects a worker after
//     worker_timeout without one (seconds), and then moves its key groups.
//   - The lease is the backstop that needs no coordinator: it expires
//     lease_ttl after the last renewal, which is when a worker that lost
//     contact must have stopped itself (its self-fencing deadline), and it
//     keeps two processes from running under one worker id.
//
// Tracker, the coordinator's view, is pure (times are passed in) so that
// its rules are tested without clocks; Watcher feeds it from NATS.
package member
