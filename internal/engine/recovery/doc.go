// Package recovery is a pipeline's data directory and what a run restores
// from it: the directory's lock and layout, the choice and full check of
// the checkpoint to restore (never a silent fresh start), where each
// source resumes, the rebuilt live state, and the markers a stop or a
// transactional publication leaves (clean stop, outbox published).
//
//	<data_dir>/LOCK               flock held for the life of a run
//	<data_dir>/state/             live state (working storage, rebuilt at start)
//	<data_dir>/checkpoints/       checkpoint.FORMAT.md
//	<data_dir>/clean-stop         id of the final checkpoint of a graceful stop (metrics only)
//	<data_dir>/OUTBOX-PUBLISHED   newest checkpoint whose transactional outputs are all published
//
// Everything the engine creates there is private (directories 0700, files
// 0600, internal/privatefs); CheckPrivate reports a data dir that an older
// release or the user left open to other local users, and changes nothing.
//
// Whether a checkpoint's operators fit the configured ones is the engine's
// knowledge (modules, state versions, migrations): Choose takes it as a
// function.
package recovery
