// Package ttlspec holds the time-to-live settings of a named state: the TTL
// value, its option enums and their config words. It is a leaf: the
// standard library only, so the pipeline-file parser (internal/engine/config) reads
// a state block's TTL without importing the state store (Pebble). Package
// state applies a TTL (internal/state/FORMAT.md §3.1 states the rules) and
// re-exports these names.
package ttlspec
