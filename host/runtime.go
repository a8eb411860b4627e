// Package host runs operator modules in wazero sandboxes: compilation and its
// cache, validation against the ABI, instance lifecycle, the host functions
// of ABI v1 and the sandbox limits (memory pages, per-batch deadline, and
// the module limits checked before a module is compiled: ModuleLimits).
package host

import (
	"context"
	"fmt"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// Engine selects wazero's execution engine.
type Engine string

const (
	// EngineCompiler compiles to native code (default; fastest).
	EngineCompiler Engine = "compiler"
	// EngineInterpreter interprets; portable, used by conformance runs.
	EngineInterpreter Engine = "interpreter"
)

// DefaultMemoryPages is the default per-instance memory limit (32 MiB).
const DefaultMemoryPages = 512

// RuntimeConfig configures one Runtime. The zero value is usable.
type RuntimeConfig struct {
	// CacheDir holds compiled code across runs; "" disables the disk cache.
	CacheDir string
	// MemoryLimitPages caps every instance's linear memory (64 KiB pages).
	MemoryLimitPages uint32
	// Engine is compiler (default) or interpreter.
	Engine Engine
	// ValidationTimeout bounds the guest code run while a module is
	// validated: its start section, _initialize and ws_abi_version.
	ValidationTimeout time.Duration
	// ModuleLimits bound the shape of the modules Compile accepts (zero
	// fields: the defaults).
	ModuleLimits ModuleLimits
}

// DefaultValidationTimeout is the default RuntimeConfig.ValidationTimeout.
const DefaultValidationTimeout = 10 * time.Second

// Runtime is an operator's handle on a wazero runtime with the wasmstream
// host module and WASI (without files, network, wall clock or entropy:
// wazero's defaults are deterministic fakes, which keeps replays
// deterministic). Runtimes of one effective configuration share the
// wazero runtime and the modules compiled in it (shared.go); each keeps
// its own instances and closes them on Close.
type Runtime struct {
	rt     wazero.Runtime
	cfg    RuntimeConfig
	shared *sharedRuntime
	guests *guestSet
}

// NewRuntime builds a runtime. An operator's runtime has its own
// configuration because the memory limit is a runtime-wide setting in
// wazero; operators with the same settings share the wazero runtime.
func NewRuntime(ctx context.Context, cfg RuntimeConfig) (*Runtime, error) {
	if cfg.MemoryLimitPages == 0 {
		cfg.MemoryLimitPages = DefaultMemoryPages
	}
	if cfg.ValidationTimeout <= 0 {
		cfg.ValidationTimeout = DefaultValidationTimeout
	}
	if cfg.Engine == "" {
		cfg.Engine = EngineCompiler
	}
	cfg.ModuleLimits = cfg.ModuleLimits.withDefaults()
	sr, err := acquireRuntime(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &Runtime{rt: sr.rt, cfg: cfg, shared: sr, guests: newGuestSet()}, nil
}

func runtimeConfig(cfg RuntimeConfig) (wazero.RuntimeConfig, error) {
	var rc wazero.RuntimeConfig
	switch cfg.Engine {
	case "", EngineCompiler:
		rc = wazero.NewRuntimeConfigCompiler()
	case EngineInterpreter:
		rc = wazero.NewRuntimeConfigInterpreter()
	default:
		return nil, fmt.Errorf("unknown engine %q: use %q or %q", cfg.Engine, EngineCompiler, EngineInterpreter)
	}
	// CloseOnContextDone is the only way to stop a runaway loop; it costs
	// about a microsecond per guest call, which batching amortises.
	return rc.WithMemoryLimitPages(cfg.MemoryLimitPages).WithCloseOnContextDone(true), nil
}

func instantiateImports(ctx context.Context, rt wazero.Runtime) error {
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		return fmt.Errorf("instantiate WASI: %w", err)
	}
	if _, err := hostModule(rt).Instantiate(ctx); err != nil {
		return fmt.Errorf("instantiate host module: %w", err)
	}
	if _, err := envModule(rt).Instantiate(ctx); err != nil {
		return fmt.Errorf("instantiate env module: %w", err)
	}
	return nil
}

// ModuleLimits returns the effective module limits.
func (r *Runtime) ModuleLimits() ModuleLimits { return r.cfg.ModuleLimits }

// MemoryLimitPages returns the effective page limit.
func (r *Runtime) MemoryLimitPages() uint32 { return r.cfg.MemoryLimitPages }

// Close closes the instances made through the runtime that are still
// open and releases the runtime. Safe to call more than once.
func (r *Runtime) Close(ctx context.Context) error {
	if r.guests.closeAll(ctx) {
		releaseRuntime(ctx, r.shared)
	}
	return nil
}
