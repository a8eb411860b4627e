// Package state is the keyed state backend of wasmstream: operators (WASM
// guests) read and write named states scoped to the key of the current
// record, and the host keeps that state in Pebble.
//
// # Key groups
//
// A record key maps to a key group, KeyGroup(key, m) = FNV-1a-64(key) mod m,
// where m is the operator's maxParallelism (DefaultMaxParallelism = 128).
// Task i of p owns the key groups RangeForTask(i, p, m) = [i*m/p, (i+1)*m/p).
// A rescale only reassigns ranges: the stored keys do not move.
//
// # Layout (state format version 1, FORMAT.md)
//
// One Pebble DB per data dir holds every operator. All integers big-endian:
//
//	state key:  's' | u8 len(operator) | operator | u16 keyGroup | u16 len(name) | name | userKey
//	state value: u8 flags | [i64 expiresAtUnixNano if flags&1] | value bytes
//	metadata:   'm' | name   (format_version = u32 FormatVersion; engine entries)
//
// The entries of one operator in one key-group range are therefore one
// contiguous key range (Store.Scan).
//
// # Backends
//
// A Backend serves one operator task from a write-back cache: reads fill
// the cache (absence included), writes stay in it until a flush writes them
// into the batch that commits a checkpoint's consistent cut: FlushTo at
// once, or incrementally (BeginFlush cuts in O(1), FlushStep encodes between
// guest batches, the Flush is committed elsewhere, EndFlush ends it). BeginBatch,
// CommitBatch and RollbackBatch make a guest batch all-or-nothing.
//
// # TTL
//
// BackendOptions.TTL gives state names a time to live (TTL: duration,
// update type, visibility, time domain). A write stores its expiry with the
// value, so it travels inside checkpoints; an expired value is absent to a
// Get (by default), never written by a flush, and deleted by the
// incremental Backend.Sweep, which the engine calls between batches.
// SetCurrentRecord gives the event time for event-time TTLs;
// BackendOptions.Clock is the processing clock (injectable in tests).
// FORMAT.md §3.1 has the rules, RATIONALE.md the trade-offs.
//
// # Filesystem
//
// Options.FS is the filesystem Pebble keeps the store on (a Pebble vfs.FS,
// default vfs.Default). Pebble also writes checkpoints of the DB through it,
// so a test that opens the store on vfs/errorfs can fail the live store's
// writes or a checkpoint's (checkpoint.Writer takes the same FS). Open
// wraps it with internal/privatefs: the store's files are 0600 and its
// directories 0700, since a table file holds state values in the clear.
//
// RATIONALE.md explains the choices; BENCHMARKS.md records their cost.
package state
