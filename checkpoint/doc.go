// Package checkpoint is the snapshot layer of wasmstream checkpoints: what
// a checkpoint is on disk, and how it is written, read, verified, retained,
// restored and kept as a savepoint. The protocol that decides when a
// checkpoint is cut and what it holds is not here: it is the pure state
// machine of internal/protocol, which the engine drives.
//
// [Write] takes a Pebble checkpoint of the live state (with the WAL flushed
// first, so unsynced writes are in it) and records every file's size and
// SHA-256 with the source positions and operator versions in a manifest
// written atomically; a checkpoint directory therefore always holds a
// complete checkpoint. [Verify], [List], [Read], [Retain] and [Restore]
// work on the checkpoint directory; savepoints copy a checkpoint out of
// retention with the modules that wrote it, and archives carry one between
// machines (internal/savepointstore puts them in a JetStream Object
// Store: this package imports no transport). The layout, the manifest, the
// savepoint and the archive are specified in FORMAT.md.
//
// [Writer] is Write on a filesystem of the caller's choice (a Pebble vfs.FS;
// Write uses vfs.Default): tests inject faults with vfs/errorfs into the
// manifest write, its fsync and the renames, and into the Pebble checkpoint
// through the DB's own filesystem (state.Options.FS). A Write that fails
// removes its temporary directory, so List and a restore never see a
// partial checkpoint (write_faults_test.go).
package checkpoint
