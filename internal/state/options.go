package state

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/wasmstream/wasmstream/abi"
)

// Defaults of Options and BackendOptions.
const (
	// DefaultCacheSizeBytes is the Pebble block cache: a 256 MiB cache with
	// bloom filters gave ~3x the point reads/s of Pebble's 8 MiB default.
	DefaultCacheSizeBytes = 256 << 20
	// DefaultCacheEntries is the write-back cache capacity of a backend.
	DefaultCacheEntries = 1 << 20
	// DefaultMaxValueLen is the largest state value, the ABI's default.
	DefaultMaxValueLen = abi.DefaultMaxValueLen
	// bloomBitsPerKey gives ~1% false positives, Pebble's usual choice.
	bloomBitsPerKey = 10
)

// Options configure a Store. The zero value is valid: every field has a default.
type Options struct {
	// CacheSizeBytes is the Pebble block cache size. Default DefaultCacheSizeBytes.
	CacheSizeBytes int64
	// ReadOnly opens an existing store for reading only (tools, inspecting a
	// checkpoint). The store must already carry a format version.
	ReadOnly bool
	// Logger receives Pebble's messages. Default: errors to the standard
	// logger, informational messages (one per Open, per WAL) dropped.
	Logger pebble.Logger
	// FS is the filesystem Pebble keeps the store on, and writes its
	// checkpoints through (pebble.Options.FS), wrapped by privatefs.Wrap so
	// that every file Pebble creates is 0600 and every directory 0700.
	// Default vfs.Default, the operating system's; tests inject faults with
	// vfs/errorfs.
	FS vfs.FS
}

// withDefaults returns o with zero fields set to their defaults.
func (o Options) withDefaults() Options {
	if o.CacheSizeBytes == 0 {
		o.CacheSizeBytes = DefaultCacheSizeBytes
	}
	if o.Logger == nil {
		o.Logger = errorsOnlyLogger{}
	}
	if o.FS == nil {
		o.FS = vfs.Default
	}
	return o
}

// errorsOnlyLogger is the default Logger.
type errorsOnlyLogger struct{}

func (errorsOnlyLogger) Infof(string, ...any) {}

func (errorsOnlyLogger) Errorf(format string, args ...any) {
	pebble.DefaultLogger.Errorf(format, args...)
}

func (errorsOnlyLogger) Fatalf(format string, args ...any) {
	pebble.DefaultLogger.Fatalf(format, args...)
}

// validate checks a defaulted Options.
func (o Options) validate() error {
	if o.CacheSizeBytes < 0 {
		return fmt.Errorf("%w: CacheSizeBytes %d is negative; use 0 for the default", ErrInvalidOptions, o.CacheSizeBytes)
	}
	return nil
}

// String prints the options, for the record of a run's effective configuration.
func (o Options) String() string {
	return fmt.Sprintf("state.Options{CacheSizeBytes: %d, ReadOnly: %t, BloomBitsPerKey: %d, FormatVersion: %d}",
		o.CacheSizeBytes, o.ReadOnly, bloomBitsPerKey, FormatVersion)
}

// BackendOptions configure the Backend of one operator task.
type BackendOptions struct {
	// Operator names the operator; its state lives under this name. 1..255 bytes.
	Operator string
	// Range is the key groups the task owns; compute it with RangeForTask.
	// Required: a default would let two tasks own the same keys.
	Range KeyGroupRange
	// MaxParallelism is the number of key groups. Default DefaultMaxParallelism.
	MaxParallelism int
	// CacheEntries is the write-back cache capacity in entries (name and key
	// pairs, present or known absent). Default DefaultCacheEntries.
	CacheEntries int
	// MaxValueLen is the largest value Put accepts. Default DefaultMaxValueLen.
	MaxValueLen int
	// TTL gives state names a time to live (FORMAT.md §3.1). The key is the
	// state name; a map state's entries (name 0x00 mapKey) follow the entry
	// of the map's name. A name without an entry writes values that never
	// expire. The map is copied.
	TTL map[string]TTL
	// Clock is processing time, Unix nanoseconds, for processing-time TTLs
	// (and event-time ones of records without an event time). Default
	// time.Now. Tests inject a fake clock.
	Clock func() int64
}

// withDefaults returns o with zero fields set to their defaults.
func (o BackendOptions) withDefaults() BackendOptions {
	if o.MaxParallelism == 0 {
		o.MaxParallelism = DefaultMaxParallelism
	}
	if o.CacheEntries == 0 {
		o.CacheEntries = DefaultCacheEntries
	}
	if o.MaxValueLen == 0 {
		o.MaxValueLen = DefaultMaxValueLen
	}
	if o.Clock == nil {
		o.Clock = defaultClock
	}
	return o
}

// validate checks a defaulted BackendOptions.
func (o BackendOptions) validate() error {
	if err := validOperator(o.Operator); err != nil {
		return err
	}
	if err := ValidateParallelism(1, o.MaxParallelism); err != nil {
		return err
	}
	if err := o.Range.validate(o.MaxParallelism); err != nil {
		return fmt.Errorf("operator %q: %w", o.Operator, err)
	}
	if o.CacheEntries < 1 {
		return fmt.Errorf("%w: operator %q: CacheEntries %d must be positive", ErrInvalidOptions, o.Operator, o.CacheEntries)
	}
	if o.MaxValueLen < 1 || o.MaxValueLen > math.MaxInt32 {
		return fmt.Errorf("%w: operator %q: MaxValueLen %d must be in 1..%d", ErrInvalidOptions, o.Operator, o.MaxValueLen, math.MaxInt32)
	}
	return o.validateTTL()
}

// validateTTL checks every TTL and its state name. A name with a 0x00 byte
// could never match: the byte ends the name part of a map-state entry.
func (o BackendOptions) validateTTL() error {
	if len(o.TTL) > math.MaxUint16 {
		return fmt.Errorf("%w: operator %q: %d TTLs; at most %d state names can have one", ErrInvalidOptions, o.Operator, len(o.TTL), math.MaxUint16)
	}
	for _, name := range slices.Sorted(maps.Keys(o.TTL)) {
		if err := validName([]byte(name)); err != nil {
			return fmt.Errorf("operator %q: TTL: %w", o.Operator, err)
		}
		if strings.IndexByte(name, 0) >= 0 {
			return fmt.Errorf("%w: operator %q: TTL for state %q: a name with a 0x00 byte never matches; give the map's name",
				ErrInvalidOptions, o.Operator, name)
		}
		if err := o.TTL[name].Validate(); err != nil {
			return fmt.Errorf("%w: operator %q: state %q: %w", ErrInvalidOptions, o.Operator, name, err)
		}
	}
	return nil
}

// String prints the options, for the record of a run's effective
// configuration. TTLs are listed by name; the Clock is not printed.
func (o BackendOptions) String() string {
	var ttl strings.Builder
	for i, name := range slices.Sorted(maps.Keys(o.TTL)) {
		if i > 0 {
			ttl.WriteString(", ")
		}
		fmt.Fprintf(&ttl, "%q: %s", name, o.TTL[name])
	}
	return fmt.Sprintf("state.BackendOptions{Operator: %q, Range: %s, MaxParallelism: %d, CacheEntries: %d, MaxValueLen: %d, TTL: {%s}}",
		o.Operator, o.Range, o.MaxParallelism, o.CacheEntries, o.MaxValueLen, ttl.String())
}
