package state

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/internal/ttlspec"
)

// A TTL the state cannot apply is invalid options of the backend, and
// still says it is the TTL (ttlspec.ErrInvalid).
func TestBadTTLIsInvalidOptions(t *testing.T) {
	o := BackendOptions{Operator: "op", Range: KeyGroupRange{0, 128}, TTL: map[string]TTL{"seen": {Duration: -time.Second}}}
	err := o.withDefaults().validate()
	if !errors.Is(err, ErrInvalidOptions) || !errors.Is(err, ttlspec.ErrInvalid) {
		t.Fatalf("validate = %v, want ErrInvalidOptions and ttlspec.ErrInvalid", err)
	}
	for _, part := range []string{`operator "op"`, `state "seen"`, "-1s"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q does not say %s", err, part)
		}
	}
}

// An expiry past the largest time saturates rather than wrapping into the
// past, which would make a value expire at once.
func TestExpiryAfterSaturates(t *testing.T) {
	tests := []struct {
		now  int64
		d    time.Duration
		want int64
	}{
		{0, time.Second, int64(time.Second)},
		{-int64(time.Minute), time.Second, -int64(time.Minute) + int64(time.Second)},
		{math.MaxInt64 - 5, 10, math.MaxInt64},
		{math.MaxInt64, time.Duration(math.MaxInt64), math.MaxInt64},
	}
	for _, tc := range tests {
		if got := expiryAfter(tc.now, tc.d); got != tc.want {
			t.Errorf("expiryAfter(%d, %d) = %d, want %d", tc.now, tc.d, got, tc.want)
		}
	}
}

// TestDeclaredTTL: every flag bit maps to its option; no TTL without a
// positive ttl_ms.
func TestDeclaredTTL(t *testing.T) {
	for _, tc := range []struct {
		ms    int64
		flags uint32
		want  TTL
		ok    bool
	}{
		{0, 0, TTL{}, false},
		{-1, abi.DeclareReadAndWrite, TTL{}, false},
		{60_000, 0, TTL{Duration: time.Minute}, true},
		{1, abi.DeclareReadAndWrite, TTL{Duration: time.Millisecond, Update: OnReadAndWrite}, true},
		{1, abi.DeclareReturnExpired, TTL{Duration: time.Millisecond, Visibility: ReturnExpiredIfNotCleaned}, true},
		{1, abi.DeclareEventTime, TTL{Duration: time.Millisecond, TimeDomain: EventTime}, true},
		{2, abi.DeclareFlagsMask, TTL{Duration: 2 * time.Millisecond, Update: OnReadAndWrite, Visibility: ReturnExpiredIfNotCleaned, TimeDomain: EventTime}, true},
	} {
		got, ok := DeclaredTTL(tc.ms, tc.flags)
		if got != tc.want || ok != tc.ok {
			t.Errorf("DeclaredTTL(%d, %b) = %+v %v, want %+v %v", tc.ms, tc.flags, got, ok, tc.want, tc.ok)
		}
	}
}
