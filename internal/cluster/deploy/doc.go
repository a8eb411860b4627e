// Package deploy prepares a cluster pipeline's NATS before its workers
// start (design ../../../shared/cluster.md §4 consequence 1, §5.0, §5.4
// "Savepoints"). It is the logic behind `wasmstream deploy`; the command
// only prints.
//
// # Assets
//
// Ensure creates what every worker needs and that should never be created
// during a failure (creating a replicated asset right after a node died
// timed out in the experiment of §4): the declared streams, the control
// KV bucket (worker.BucketName) and the state Object Store
// (worker.ObjectStoreName), with cluster.replicas replicas, exactly as the
// first worker would create them. It reports which existed already, so a
// second run is a no-op that says so.
//
// # Seeding from a savepoint
//
// Seed makes a savepoint the cluster's next completed checkpoint, so the
// workers started afterwards restore it: the way back from `wasmstream
// run` (or from another cluster) into a cluster. It does what a
// coordinator and its workers do for one checkpoint (package
// clusterckpttest is the same steps as a test fixture):
//
//  1. it takes the coordinator lease as holder "deploy" and refuses while
//     a worker holds it or any membership lease is held: running workers
//     would not restore the seeded checkpoint, and a coordinator of
//     theirs would race it;
//  2. it makes the savepoint (a NAME of the data dir, an archive FILE or
//     objectstore:NAME, as `run --from-savepoint` takes) a local
//     checkpoint in a private directory and checks that it fits the
//     pipeline: the same operators, max_parallelism, ABI, state format
//     and module (or an unchanged state_version), and positions in the
//     streams the sources read;
//  3. it claims checkpoint N (ctlrec.Claim, fenced by the lease), ships
//     each task of the savepoint's run as a restricted Pebble checkpoint
//     of the savepoint's state (ship.Shipper.Snapshot and Upload under
//     global.TaskObject with worker "deploy"), assembles one ack of
//     worker "deploy" into the global manifest and completes N
//     (ctlrec.Complete, the commit point).
//
// The seeded checkpoint carries the savepoint's cut unchanged: its source
// positions, every task entry with its inputs (the entries of a task the
// engine split share one task checkpoint, as a worker ships them), the
// operators' module hashes and state versions. Only the checkpoint id is
// the cluster's own: the next one after every claimed or completed.
//
// A cluster with a completed checkpoint is refused unless Options.Force:
// the seeded checkpoint then becomes the latest, which the workers
// restore instead of the older ones.
package deploy
