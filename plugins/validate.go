package plugins

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/host"
)

// wasmMagic starts every WebAssembly binary.
var wasmMagic = []byte("\x00asm")

// Validate checks that wasm is an operator module this host can run: within
// the size limit, WebAssembly, initial memory within the memory limit, only
// imports the host provides, every ABI export with its signature, the ABI
// version this host speaks, and a ws_init that succeeds with an empty
// config. It returns what it learnt, or a *ValidationError wrapping
// ErrTooLarge, ErrNotWasm, ErrMemory, ErrImports, ErrExports, ErrABI,
// ErrStart or ErrInit whose message says what to change.
//
// The checks that run the guest are the ones `wasmstream validate` and
// `run` make (host.Runtime.Compile, then host.Module.CheckInit), on the
// same engine (the compiler), so that what push accepts is what runs and
// push costs what validate costs: the module is compiled once, within the
// host's module limits (host.CheckStructure), and never decoded
// otherwise. A Go guest takes 2 to 3 s to compile there (about ten times
// the interpreter). ws_init runs under the default limits.batch_timeout
// (host.DefaultBatchTimeout), as for an operator block without limits.
func Validate(ctx context.Context, wasm []byte, lim Limits) (Info, error) {
	return ValidateWithConfig(ctx, wasm, lim, nil)
}

// ValidateWithConfig is Validate with ws_init given config instead of an
// empty one: for an operator that refuses to start without a config.
func ValidateWithConfig(ctx context.Context, wasm []byte, lim Limits, config []byte) (Info, error) {
	lim = lim.withDefaults()
	if err := checkSize(int64(len(wasm)), lim); err != nil {
		return Info{}, err
	}
	if !bytes.HasPrefix(wasm, wasmMagic) {
		return Info{}, &ValidationError{Kind: ErrNotWasm, Detail: notWasmDetail(wasm)}
	}
	// Before any wazero decoding: its decoder allocates for the counts a
	// module claims before reading the entries (gigabytes for a few bytes).
	shape, err := host.CheckStructure(wasm, lim.moduleLimits())
	if err != nil {
		return Info{}, structureError(err)
	}
	info := Info{Hash: HashBytes(wasm), Size: int64(len(wasm))}
	if m := shape.Memory; m != nil {
		info.MemoryMinPages = m.Min
		if m.HasMax {
			info.MemoryMaxPages = &m.Max
		}
	}
	if info.MemoryMinPages > lim.MemoryPages {
		return Info{}, &ValidationError{Kind: ErrMemory, Detail: fmt.Sprintf(
			"the module's memory starts at %d pages (%s), over the limit of %d pages (%s); "+
				"make the guest start with less memory, or raise the limit (and the pipeline's limits.memory_pages)",
			info.MemoryMinPages, pagesBytes(info.MemoryMinPages), lim.MemoryPages, pagesBytes(lim.MemoryPages))}
	}
	if info.Imports, err = checkStarts(ctx, wasm, lim, config); err != nil {
		return Info{}, err
	}
	info.ABIVersion = abi.Version
	return info, nil
}

// structureError explains a module that host.CheckStructure refused.
func structureError(err error) error {
	if errors.Is(err, host.ErrModuleLimit) {
		return &ValidationError{Kind: ErrTooLarge, Detail: err.Error(), Cause: err}
	}
	return &ValidationError{Kind: ErrNotWasm, Detail: "malformed WebAssembly: " + err.Error() + "; the file is damaged or truncated: rebuild it", Cause: err}
}

func checkSize(size int64, lim Limits) error {
	switch {
	case size == 0:
		return &ValidationError{Kind: ErrNotWasm, Detail: "the file is empty; give the .wasm file your build produced"}
	case size > lim.MaxBytes:
		return &ValidationError{Kind: ErrTooLarge, Detail: fmt.Sprintf(
			"it has %d bytes, over the limit of %d bytes; strip debug information "+
				"(Go: -ldflags='-s -w'; Rust: strip = true; C: -s), or raise the size limit", size, lim.MaxBytes)}
	}
	return nil
}

func notWasmDetail(b []byte) string {
	head := b[:min(len(b), 8)]
	return fmt.Sprintf("it starts with %q, not the WebAssembly magic \"\\x00asm\"; "+
		"build a WebAssembly module (e.g. GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o op.wasm)", head)
}

func pagesBytes(pages uint32) string {
	return fmt.Sprintf("%g MiB", float64(pages)/16)
}

// checkStarts runs host.Runtime.Compile's checks, then ws_init with config
// (host.Module.CheckInit), under the memory and module limits, and returns
// the host functions the module imports.
func checkStarts(ctx context.Context, wasm []byte, lim Limits, config []byte) ([]string, error) {
	rt, err := host.NewRuntime(ctx, host.RuntimeConfig{
		Engine:            host.EngineCompiler,
		MemoryLimitPages:  lim.MemoryPages,
		ValidationTimeout: lim.ValidationTimeout,
		ModuleLimits:      lim.moduleLimits(),
	})
	if err != nil {
		return nil, err
	}
	defer rt.Close(ctx)
	m, err := rt.Compile(ctx, "", wasm)
	if err != nil {
		return nil, fromHostError(err)
	}
	defer m.Close(ctx)
	if _, err := m.CheckInit(ctx, host.InstanceConfig{Config: config}); err != nil {
		return nil, initError(err, config)
	}
	return m.HostImports(), nil
}

// initError wraps a failed ws_init in an ErrInit ValidationError that says
// which config ws_init had.
func initError(err error, config []byte) error {
	var ge *host.GuestError
	if !errors.As(err, &ge) {
		return err // a host failure, not the module's
	}
	detail := strings.TrimPrefix(ge.Error(), fmt.Sprintf("operator %q: ", ge.Operator))
	detail, _, _ = strings.Cut(detail, "\n") // wazero's stack trace follows the message
	if errors.Is(ge.Kind, host.ErrInit) && ge.Code != abi.OK {
		// The host's detail points at log lines and a pipeline file that push has not got.
		detail = fmt.Sprintf("ws_init returned %s: the operator refused its config", ge.Code)
	}
	if len(config) > 0 {
		detail += "; ws_init ran with the config given to push (--init-config): fix the module's ws_init, or give the config its pipelines use"
	} else {
		detail += "; ws_init ran with an empty config, as validate and run give an operator block without config: " +
			"fix the module's ws_init, or, if the operator needs a config to start, give push one it accepts with --init-config FILE"
	}
	return &ValidationError{Kind: ErrInit, Detail: detail, Cause: err}
}

// hostKinds maps host's validation errors to this package's.
var hostKinds = []struct{ host, kind error }{
	{host.ErrInvalidModule, ErrNotWasm},
	{host.ErrModuleLimit, ErrTooLarge},
	{host.ErrABIVersion, ErrABI},
	{host.ErrMissingExport, ErrExports},
	{host.ErrUnknownImport, ErrImports},
	{host.ErrMemoryLimit, ErrMemory},
	{host.ErrInit, ErrStart},
	{host.ErrTrap, ErrStart},
	{host.ErrTimeout, ErrStart},
}

// fromHostError wraps a host.GuestError in a ValidationError with the
// host's explanation, without its "operator \"\":" prefix.
func fromHostError(err error) error {
	var ge *host.GuestError
	if !errors.As(err, &ge) {
		return err
	}
	// The first line is the message; wazero's stack trace follows it.
	detail, _, _ := strings.Cut(ge.Detail, "\n")
	if ge.Func != "" {
		detail = "in " + ge.Func + ": " + detail
	}
	for _, k := range hostKinds {
		if errors.Is(ge.Kind, k.host) {
			if k.kind == ErrStart {
				detail += "; the module must start without trapping and within the validation timeout"
			}
			return &ValidationError{Kind: k.kind, Detail: detail, Cause: err}
		}
	}
	return err
}
