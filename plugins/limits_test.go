package plugins

import (
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/host"
)

func TestLimitsDefaults(t *testing.T) {
	got := Limits{}.withDefaults()
	want := Limits{MaxBytes: 64 << 20, MemoryPages: host.DefaultMemoryPages, ValidationTimeout: host.DefaultValidationTimeout,
		MaxTableElements: host.DefaultMaxTableElements}
	if got != want {
		t.Fatalf("defaults %+v, want %+v", got, want)
	}
	set := Limits{MaxBytes: 10, MemoryPages: 7, ValidationTimeout: time.Second, MaxTableElements: 9}
	if set.withDefaults() != set {
		t.Fatalf("set limits changed: %+v", set.withDefaults())
	}
	if s := (Limits{}).String(); s != "max 67108864 bytes, memory 512 pages, validation timeout 10s, table elements 100000" {
		t.Fatalf("String() = %q", s)
	}
}
