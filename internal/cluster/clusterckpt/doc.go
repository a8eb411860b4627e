// Package clusterckpt reads, verifies and saves the checkpoints of a
// cluster pipeline, one whose file has a cluster block and runs as
// `wasmstream worker` processes (design ../../../shared/cluster.md §5.3,
// §5.4, §7 phase 1 acceptance 5 and 6). It is the logic behind
// `wasmstream checkpoints list|inspect|verify` and `wasmstream savepoint
// create` for such a pipeline; the commands only print.
//
// # Where a cluster checkpoint is
//
// The workers keep no cluster checkpoint in their data dirs. Checkpoint N
// is complete once its completion record checkpoint.<N> is in the
// pipeline's control KV bucket (worker.BucketName, package ctlrec; read
// through the stream leader, since a Direct Get may be stale). The record
// names the global manifest in the pipeline's state Object Store
// (worker.ObjectStoreName, package global) with the SHA-256 of its bytes;
// the manifest references one task manifest per task, and each task
// manifest the content-addressed objects sst/<sha256> of its Pebble
// checkpoint (package ship). Verify checks every one of these objects.
//
// # Savepoints
//
// A savepoint of a cluster checkpoint is an ordinary savepoint
// (checkpoint/FORMAT.md §5): every task of every operator is restored from
// the Object Store into one local checkpoint in a temporary directory
// (global.Materialize), which checkpoint.CreateSavepoint copies, with the
// operator modules, into <data_dir>/savepoints/NAME. It restores into
// `wasmstream run --from-savepoint` of the same pipeline without its
// cluster block, on the same streams.
package clusterckpt
