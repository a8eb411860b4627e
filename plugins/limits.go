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
	// DefaultMaxTableElements is the engine's default limits.max_table_elements.
	DefaultMaxTableElements = host.DefaultMaxTableElements
)

// Limits bound what Validate accepts. The zero value means the defaults.
type Limits struct {
	// MaxBytes is the largest module size in bytes (default DefaultMaxBytes).
	MaxBytes int64
	// MemoryPages is the most 64 KiB pages the module may ask for as its
	// initial memory (default DefaultMemoryPages). A pipeline refuses a
	// module whose minimum is over its operator's limits.memory_pages.
	MemoryPages uint32
	// ValidationTimeout bounds the guest code run while the module starts
	// during validation: start section, _initialize and ws_abi_version
	// (default host.DefaultValidationTimeout). ws_init runs under the
	// engine's default limits.batch_timeout, host.DefaultBatchTimeout.
	ValidationTimeout time.Duration
	// MaxTableElements bounds the module's tables as the operator's
	// limits.max_table_elements does (default DefaultMaxTableElements; see
	// host.ModuleLimits). The host's other module limits apply at their
	// defaults.
	MaxTableElements uint32
}

// moduleLimits are the host.ModuleLimits Validate checks.
func (l Limits) moduleLimits() host.ModuleLimits {
	return host.ModuleLimits{MaxTableElements: l.MaxTableElements}
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
	if l.MaxTableElements == 0 {
		l.MaxTableElements = DefaultMaxTableElements
	}
	return l
}

// String prints the effective limits.
func (l Limits) String() string {
	l = l.withDefaults()
	return fmt.Sprintf("max %d bytes, memory %d pages, validation timeout %s, table elements %d",
		l.MaxBytes, l.MemoryPages, l.ValidationTimeout, l.MaxTableElements)
}
