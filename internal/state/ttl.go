package state

import (
	"math"
	"time"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/internal/ttlspec"
)

// The TTL value types live in the leaf package ttlspec, so that the
// pipeline-file parser reads them without importing Pebble. They keep their
// names here for the backend's API; FORMAT.md §3.1 states the rules.
type (
	// TTL is the time to live of one named state (ttlspec.TTL).
	TTL = ttlspec.TTL
	// UpdateType says which accesses set a value's expiry (ttlspec.UpdateType).
	UpdateType = ttlspec.UpdateType
	// Visibility says what a Get returns for an expired value (ttlspec.Visibility).
	Visibility = ttlspec.Visibility
	// TimeDomain is the clock an expiry is measured on (ttlspec.TimeDomain).
	TimeDomain = ttlspec.TimeDomain
)

// The TTL options; ttlspec documents each and its config word.
const (
	OnCreateAndWrite          = ttlspec.OnCreateAndWrite
	OnReadAndWrite            = ttlspec.OnReadAndWrite
	NeverReturnExpired        = ttlspec.NeverReturnExpired
	ReturnExpiredIfNotCleaned = ttlspec.ReturnExpiredIfNotCleaned
	ProcessingTime            = ttlspec.ProcessingTime
	EventTime                 = ttlspec.EventTime
)

// expiryAfter returns now + d, saturated at the largest time rather than
// wrapping into the past (an event time may be anything).
func expiryAfter(now int64, d time.Duration) int64 {
	if d > 0 && now > math.MaxInt64-int64(d) {
		return math.MaxInt64
	}
	return now + int64(d)
}

// DeclaredTTL converts a module's state declaration (ABI.md §6.10:
// state_declare's ttl_ms and flags) into a TTL. ok is false when the
// declaration gives no TTL (abi.TTLUnset, or abi.TTLNever).
func DeclaredTTL(ttlMillis int64, flags uint32) (t TTL, ok bool) {
	if ttlMillis <= 0 {
		return TTL{}, false
	}
	t.Duration = time.Duration(ttlMillis) * time.Millisecond
	if flags&abi.DeclareReadAndWrite != 0 {
		t.Update = OnReadAndWrite
	}
	if flags&abi.DeclareReturnExpired != 0 {
		t.Visibility = ReturnExpiredIfNotCleaned
	}
	if flags&abi.DeclareEventTime != 0 {
		t.TimeDomain = EventTime
	}
	return t, true
}
