package plugins

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tetratelabs/wazero"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/host"
)

// wasmMagic starts every WebAssembly binary.
var wasmMagic = []byte("\x00asm")

// Validate checks that wasm is an operator module this host can run: within
// the size limit, WebAssembly, initial memory within the memory limit, only
// imports the host provides, every ABI export with its signature, and the
// ABI version this host speaks. It returns what it learnt, or a
// *ValidationError wrapping ErrTooLarge, ErrNotWasm, ErrMemory, ErrImports,
// ErrExports, ErrABI or ErrStart whose message says what to change.
//
// The ABI checks are host.Runtime.Compile's, run on wazero's interpreter:
// it compiles a Go guest about ten times faster than the compiler engine,
// and validation runs the guest only to ask its ABI version.
func Validate(ctx context.Context, wasm []byte, lim Limits) (Info, error) {
	lim = lim.withDefaults()
	if err := checkSize(int64(len(wasm)), lim); err != nil {
		return Info{}, err
	}
	if !bytes.HasPrefix(wasm, wasmMagic) {
		return Info{}, &ValidationError{Kind: ErrNotWasm, Detail: notWasmDetail(wasm)}
	}
	// Before any wazero decoding: its decoder allocates for the counts a
	// module claims before reading the entries (gigabytes for a few bytes).
	if err := host.CheckStructure(wasm); err != nil {
		return Info{}, &ValidationError{Kind: ErrNotWasm, Detail: "malformed WebAssembly: " + err.Error() + "; the file is damaged or truncated: rebuild it", Cause: err}
	}
	info, err := inspect(ctx, wasm)
	if err != nil {
		return Info{}, err
	}
	if info.MemoryMinPages > lim.MemoryPages {
		return Info{}, &ValidationError{Kind: ErrMemory, Detail: fmt.Sprintf(
			"the module's memory starts at %d pages (%s), over the limit of %d pages (%s); "+
				"make the guest start with less memory, or raise the limit (and the pipeline's limits.memory_pages)",
			info.MemoryMinPages, pagesBytes(info.MemoryMinPages), lim.MemoryPages, pagesBytes(lim.MemoryPages))}
	}
	if err := checkABI(ctx, wasm, lim); err != nil {
		return Info{}, err
	}
	info.ABIVersion = abi.Version
	return info, nil
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

// inspect decodes the module with a bare wazero runtime to read its imports
// and memory. host.Runtime applies the memory limit while decoding, which
// would report an oversized memory as an invalid module; decoding without
// it first lets Validate say which limit was hit.
func inspect(ctx context.Context, wasm []byte) (Info, error) {
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	cm, err := rt.CompileModule(ctx, wasm)
	if err != nil {
		return Info{}, &ValidationError{Kind: ErrNotWasm, Cause: err, Detail: err.Error() +
			"; the file is damaged or not a module wazero supports: rebuild it"}
	}
	defer cm.Close(ctx)
	info := Info{Hash: HashBytes(wasm), Size: int64(len(wasm)), Imports: hostImports(cm)}
	for _, m := range cm.ExportedMemories() {
		info.MemoryMinPages = m.Min()
		if max, ok := m.Max(); ok {
			info.MemoryMaxPages = &max
		}
	}
	return info, nil
}

// hostImports lists the distinct wasmstream host functions cm imports.
func hostImports(cm wazero.CompiledModule) []string {
	names := []string{}
	for _, f := range cm.ImportedFunctions() {
		if mod, name, _ := f.Import(); mod == abi.ImportModule && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// checkABI runs host.Runtime.Compile's checks with the memory limit.
func checkABI(ctx context.Context, wasm []byte, lim Limits) error {
	rt, err := host.NewRuntime(ctx, host.RuntimeConfig{
		Engine:            host.EngineInterpreter,
		MemoryLimitPages:  lim.MemoryPages,
		ValidationTimeout: lim.ValidationTimeout,
	})
	if err != nil {
		return err
	}
	defer rt.Close(ctx)
	m, err := rt.Compile(ctx, "", wasm)
	if err != nil {
		return fromHostError(err)
	}
	return m.Close(ctx)
}

// hostKinds maps host's validation errors to this package's.
var hostKinds = []struct{ host, kind error }{
	{host.ErrInvalidModule, ErrNotWasm},
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
