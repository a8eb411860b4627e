// Package ship moves the keyed state of one task between machines through
// a JetStream Object Store: a restricted Pebble checkpoint of the task's
// key-group range, uploaded content-addressed and so incrementally, and
// restored by range on any worker (design ../../../shared/cluster.md §5.4
// "State shipping", §5.3 step 3; phase 1 acceptance 4 and 5 in §7).
//
// # Why this shape
//
// A worker keeps one Pebble DB for all its tasks (internal/state, format
// unchanged). State keys are 's' | operator | u16 key group | name | key
// (internal/state/FORMAT.md §2), so a task's range is one contiguous span
// and Pebble can checkpoint only the table files that overlap it
// (pebble.WithRestrictToSpans). Table files are immutable and named by
// their SHA-256 in the bucket (ObjectName: sst/<sha256>, for the MANIFEST,
// OPTIONS, WAL and marker files too), so a file two tasks share is stored
// once and an unchanged one is never uploaded again: checkpoints are
// incremental by construction, without a diff against the previous one.
// A restore downloads the overlapping task checkpoints, opens each
// read-only and copies the keys of its range into the live DB in batches
// (phase 1; IngestAndExcise is phase 3), which serves a failover (one old
// range), a scale-out (part of one) and a scale-in (several) alike, as in
// Flink's clip-and-ingest and Arroyo's range-filtered restore.
//
// # What a task checkpoint holds
//
//   - the state span of the task's range ('s' keys of its operator);
//   - the whole outbox ('o' keys): its keys sort by epoch before operator
//     and task, so one task's part is no span. A restore imports the
//     entries of the task's operator and index only, and only when its
//     range holds the task's first key group, so exactly one new owner
//     publishes them (§5.4 step 6);
//   - the metadata entry format_version, checked by the restore;
//   - the metadata entries Task.MetaNames, per operator (the engine's
//     dead-letter list "engine/deadletters/<operator>"). They carry no key
//     group, so Restore returns them for the caller to merge (a union for
//     dead letters, §5.4 step 5) rather than writing them.
//
// Pebble keeps every table file that overlaps a span, so a checkpoint
// also surfaces keys of other tasks and operators (and the WAL holds
// whatever was written meanwhile): a restore reads inside its spans only.
//
// # Flow and names
//
// Snapshot flushes the memtable, takes the restricted checkpoint with the
// WAL flushed, cuts the WAL copies to their records (Pebble recycles WAL
// files, and a copy carried megabytes of stale tail) and hashes every
// file, reusing the hash of a table file hashed before under the same
// inode. Upload stores the files the bucket lacks (a local index of stored
// hashes, GetInfo on a miss), then the task manifest (TaskManifest,
// Encode/Decode: strict JSON with a version, a checksum and a canonical
// encoding) under a name the caller chooses, e.g.
// ckpt/<N>-g<G>/w-<worker>-a<A>/<operator>-<start>.json beside the worker
// manifest that references it by SHA-256. Restore (and Verify, for
// `checkpoints verify`) check every object's size and SHA-256: a mismatch
// is ErrDamaged naming the object, never a skip.
//
// The package holds no policy of when to checkpoint or what to keep: the
// worker and the coordinator decide, and GC of unreferenced objects calls
// Forget on the indexes of the workers.
package ship
