// Package statequery reads an operator's keyed state for tools: one record
// key's entries (Get) or the entries whose key starts with a prefix (Scan),
// from a checkpoint of a data dir (OpenCheckpoint) without changing it.
//
// The live side (the running pipeline answering over NATS) lives in the
// engine, which owns the tasks and their write-back caches; it shares the
// wire types of this package (wire.go) so that the CLI and the engine speak
// one format.
package statequery
