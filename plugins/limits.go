package plugins

import (
	"fmt"
	"time"

	"github.com/wasmstream/wasmstream/host"
)

// Defaults of Limits.
const (
	// DefaultMaxBytes is the largest module accepted: 64 MiB, many times a
	// Go guest (2-4 MB) and far below what a JetStream object can hold.
	DefaultMaxBytes = 64 << 20
	// DefaultMemoryPages is the engine's default limits.memory_pages.
	DefaultMemoryPages = host.DefaultMemoryPages
)

// Limits bound what Validate accepts. The zero value means the defaults.
type Limits struct {
	// MaxBytes is the largest module size in bytes (default DefaultMaxBytes).
	MaxBytes int64
	// MemoryPages is the most 64 KiB pages the module may ask for as its
	// initial memory (default DefaultMemoryPages). A pipeline refuses a
	// module whose minimum is over its operator's limits.memory_pages.
	MemoryPages uint32
	// ValidationTimeout bounds the guest code run during validation
	// (default host.DefaultValidationTimeout).
	ValidationTimeout time.Duration
}

// withDefaults fills every zero field.
func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MemoryPages == 0 {
		l.MemoryPages = DefaultMemoryPages
	}
	if l.ValidationTimeout <= 0 {
		l.ValidationTimeout = host.DefaultValidationTimeout
	}
	return l
}

// String prints the effective limits.
func (l Limits) String() string {
	l = l.withDefaults()
	return fmt.Sprintf("max %d bytes, memory %d pages, validation timeout %s", l.MaxBytes, l.MemoryPages, l.ValidationTimeout)
}
