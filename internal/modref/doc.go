// Package modref reads the module reference of a pipeline's operator: a
// local .wasm path, an operator NAME (its newest version in the registry)
// or NAME@HASH (one version). It is a leaf: the standard library only, so
// the pipeline-file parser (internal/engine/config) checks a reference without
// importing the registry's runtimes (wazero, NATS). Package plugins
// resolves a Ref against the registry; it re-exports these names.
package modref
