// Package global holds a cluster checkpoint as a whole (design
// ../../../shared/cluster.md §5.3 step 4, §5.4 "Restore of range R"): the
// acknowledgement each worker writes for checkpoint N (Ack), the global
// manifest the coordinator assembles from them (Manifest, Assemble), and
// the materialization of a global manifest into an ordinary local
// checkpoint that a worker's engine restores as if it had written it
// (Materialize).
//
// # Why a local checkpoint
//
// The engine already restores, validates and replays from a chk-N
// directory: positions per source, per-task inputs, the skip table of an
// unaligned cut. Materialize builds exactly that: one fresh Pebble DB
// holding the state of the worker's tasks (restored by range with
// package ship) and the merged dead-letter lists, written with
// checkpoint.Writer under the global manifest's single-process manifest
// (Manifest.Checkpoint), which lists every task of every operator. The
// DB holds only the owned ranges, and only their tasks run.
//
// # Positions
//
// Workers snapshot at their own positions, with no cross-worker
// alignment (§5.3 step 3). The global manifest gives each source the
// lowest LastSequence any worker reported: a source resumes there, and
// each task's inputs plus the engine's skip table drop what that task's
// state already holds, so the restore is exact.
//
// # Records
//
// Acks and manifests are JSON with a format version, a checksum over
// the canonical encoding and strict decoders (unknown fields, trailing
// data, a broken rule or a changed byte are refused with ErrCorrupt):
// they live in an Object Store bucket other clients can write to. The
// global manifest is the object a completion record (package ctlrec)
// names; AckObject and ManifestObject give the names of §5.3.
package global
