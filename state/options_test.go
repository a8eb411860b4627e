package state

import (
	"errors"
	"strings"
	"testing"
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
