package state

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestOptionsDefaults(t *testing.T) {
	o := Options{}.withDefaults()
	if o.CacheSizeBytes != DefaultCacheSizeBytes {
		t.Errorf("CacheSizeBytes = %d, want %d", o.CacheSizeBytes, DefaultCacheSizeBytes)
	}
	if err := (Options{CacheSizeBytes: -1}).withDefaults().validate(); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("negative cache: %v, want ErrInvalidOptions", err)
	}
	if s := o.String(); !strings.Contains(s, "CacheSizeBytes: 268435456") || !strings.Contains(s, "FormatVersion: 1") {
		t.Errorf("String() = %s", s)
	}
}

func TestBackendOptionsDefaults(t *testing.T) {
	o := BackendOptions{Operator: "op", Range: KeyGroupRange{0, 1}}.withDefaults()
	if o.MaxParallelism != DefaultMaxParallelism || o.CacheEntries != DefaultCacheEntries || o.MaxValueLen != DefaultMaxValueLen {
		t.Errorf("defaults = %+v", o)
	}
	if err := o.validate(); err != nil {
		t.Errorf("validate: %v", err)
	}
	if s := o.String(); !strings.Contains(s, `Operator: "op"`) || !strings.Contains(s, "Range: [0,1)") {
		t.Errorf("String() = %s", s)
	}
}

func TestBackendOptionsValidate(t *testing.T) {
	ok := BackendOptions{Operator: "op", Range: KeyGroupRange{0, 128}}
	tests := map[string]func(o *BackendOptions){
		"no operator":         func(o *BackendOptions) { o.Operator = "" },
		"long operator":       func(o *BackendOptions) { o.Operator = strings.Repeat("x", 256) },
		"no range":            func(o *BackendOptions) { o.Range = KeyGroupRange{} },
		"range past m":        func(o *BackendOptions) { o.Range = KeyGroupRange{0, 129} },
		"negative start":      func(o *BackendOptions) { o.Range = KeyGroupRange{-1, 4} },
		"inverted range":      func(o *BackendOptions) { o.Range = KeyGroupRange{9, 4} },
		"negative m":          func(o *BackendOptions) { o.MaxParallelism = -1 },
		"m too large":         func(o *BackendOptions) { o.MaxParallelism = MaxMaxParallelism + 1 },
		"negative cache":      func(o *BackendOptions) { o.CacheEntries = -1 },
		"negative value len":  func(o *BackendOptions) { o.MaxValueLen = -1 },
		"value len over 2GiB": func(o *BackendOptions) { o.MaxValueLen = 1 << 31 },
	}
	for what, change := range tests {
		o := ok
		change(&o)
		if err := o.withDefaults().validate(); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%s: validate = %v, want ErrInvalidOptions", what, err)
		}
	}
	if err := ok.withDefaults().validate(); err != nil {
		t.Errorf("valid options: %v", err)
	}
}

func TestBackendOptionsTTL(t *testing.T) {
	ok := BackendOptions{Operator: "op", Range: KeyGroupRange{0, 128},
		TTL: map[string]TTL{"seen": {Duration: time.Minute}, "m": {Duration: time.Hour, TimeDomain: EventTime}}}
	if err := ok.withDefaults().validate(); err != nil {
		t.Fatalf("valid TTLs: %v", err)
	}
	s := ok.withDefaults().String()
	want := `TTL: {"m": {Duration: 1h0m0s, Update: on_create_and_write, Visibility: never_return_expired, TimeDomain: event_time}, "seen": {Duration: 1m0s,`
	if !strings.Contains(s, want) {
		t.Errorf("String() = %s, want it to contain %s", s, want)
	}
	if ok.withDefaults().Clock == nil {
		t.Error("no default Clock")
	}
	bad := map[string]map[string]TTL{
		"empty name":       {"": {Duration: time.Second}},
		"long name":        {strings.Repeat("n", MaxStateNameLen+1): {Duration: time.Second}},
		"map entry name":   {"m\x00k": {Duration: time.Second}},
		"no duration":      {"n": {}},
		"unknown domain":   {"n": {Duration: time.Second, TimeDomain: 7}},
		"one bad of three": {"a": {Duration: time.Second}, "b": {Duration: -1}, "c": {Duration: time.Second}},
	}
	for what, ttl := range bad {
		o := ok
		o.TTL = ttl
		err := o.withDefaults().validate()
		if !errors.Is(err, ErrInvalidOptions) && !errors.Is(err, ErrInvalidName) {
			t.Errorf("%s: validate = %v, want ErrInvalidOptions or ErrInvalidName", what, err)
		}
	}
}

// The backend copies the TTL map: a caller changing it later changes nothing.
func TestBackendCopiesTTL(t *testing.T) {
	s, clk := openStore(t), newClock()
	ttl := ttlFor("n", time.Minute, OnCreateAndWrite, NeverReturnExpired)
	b := ttlBackend(t, s, 0, clk, ttl)
	delete(ttl, "n")
	record(t, b, clk, 0, "k")
	mustPut(t, b, "n", "v")
	record(t, b, clk, 2*time.Minute, "k")
	wantGet(t, b, "n", nil)
}
