package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"

	"github.com/tetratelabs/wazero"
)

// errModuleClosed: the Module was closed; it makes no more instances.
var errModuleClosed = errors.New("module closed")

// Compile compiles and validates wasm for the operator called name: it must
// be WebAssembly, import only what the host provides, export the ABI's
// functions and memory with the right signatures, and report ABI version
// abi.Version. Errors wrap ErrInvalidModule, ErrUnknownImport,
// ErrMissingExport or ErrABIVersion and say what to change.
//
// A module this process compiled and validated before, with a Runtime of
// the same configuration, is not compiled again (shared.go): the checks
// depend only on its bytes and that configuration.
func (r *Runtime) Compile(ctx context.Context, name string, wasm []byte) (*Module, error) {
	sum := sha256.Sum256(wasm)
	m := &Module{rt: r, name: name, hash: hex.EncodeToString(sum[:]), size: len(wasm)}
	if r.guests.isClosed() {
		return nil, invalidModule(name, errRuntimeClosed)
	}
	for {
		sm, mine := r.shared.acquireModule(m.hash)
		if mine {
			compiled, err := m.compileAndValidate(ctx, wasm)
			r.shared.compiled(sm, compiled, err)
			if err != nil {
				r.shared.releaseModule(ctx, sm)
				return nil, err
			}
		} else if sm.err != nil {
			// Its compilation for another operator failed: compile it
			// here, so that the error names this operator.
			r.shared.releaseModule(ctx, sm)
			continue
		}
		m.compiled, m.shared = sm.compiled, sm
		return m, nil
	}
}

// compileAndValidate checks the module's structure, compiles it (or loads
// it from the compilation cache) and validates it against the ABI.
func (m *Module) compileAndValidate(ctx context.Context, wasm []byte) (wazero.CompiledModule, error) {
	prepared, err := prepareModule(wasm, m.rt.cfg.ModuleLimits)
	if err != nil {
		return nil, refusedStructure(m.name, err)
	}
	compiled, err := m.rt.rt.CompileModule(ctx, prepared)
	if err != nil {
		return nil, invalidModule(m.name, err)
	}
	m.compiled = compiled
	if err := m.validate(ctx); err != nil {
		_ = compiled.Close(ctx)
		return nil, err
	}
	return compiled, nil
}

// prepareModule checks wasm against lim and returns the bytes to compile:
// its tables bounded (boundTables) and its data segments merged
// (mergeDataSegments).
func prepareModule(wasm []byte, lim ModuleLimits) ([]byte, error) {
	shape, err := CheckStructure(wasm, lim)
	if err != nil {
		return nil, err
	}
	return mergeDataSegments(boundTables(wasm, &shape)), nil
}

func invalidModule(name string, err error) error {
	return &GuestError{Kind: ErrInvalidModule, Operator: name, Record: -1,
		Detail: err.Error() + " (build it as a WebAssembly module, e.g. GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared)", Cause: err}
}

// usable fails once the module or its Runtime is closed.
func (m *Module) usable() error {
	switch {
	case m.closed.Load():
		return errModuleClosed
	case m.rt.guests.isClosed():
		return errRuntimeClosed
	}
	return nil
}

// Close releases the compiled code. Safe to call more than once.
func (m *Module) Close(ctx context.Context) error {
	if m.closed.CompareAndSwap(false, true) {
		m.rt.shared.releaseModule(ctx, m.shared)
	}
	return nil
}
