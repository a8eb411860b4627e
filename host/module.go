package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmstream/wasmstream/abi"
)

// Module is a compiled operator module that passed validation. It is the
// template from which instances are made.
type Module struct {
	rt       *Runtime
	compiled wazero.CompiledModule
	shared   *sharedModule
	closed   atomic.Bool // by Close; a task may renew its instance meanwhile
	name     string
	hash     string
	size     int
}

// Hash returns the module's SHA-256 in hex: its version.
func (m *Module) Hash() string { return m.hash }

// Size returns the module's size in bytes.
func (m *Module) Size() int { return m.size }

// Name returns the operator name given to Compile.
func (m *Module) Name() string { return m.name }

var i32, i64 = api.ValueTypeI32, api.ValueTypeI64

// exportSignatures are the required guest exports with their signatures.
var exportSignatures = map[string]signature{
	abi.ExportABIVersion: {nil, []api.ValueType{i32}},
	abi.ExportAlloc:      {[]api.ValueType{i32}, []api.ValueType{i32}},
	abi.ExportInit:       {[]api.ValueType{i32, i32}, []api.ValueType{i32}},
	abi.ExportProcess:    {[]api.ValueType{i32, i32}, []api.ValueType{i32}},
}

// migrateSignature is the optional ws_migrate export's (ABI revision 1.2).
var migrateSignature = signature{[]api.ValueType{i32, i32, i32, i32, i32}, []api.ValueType{i64}}

// HasMigrate reports whether the module exports ws_migrate.
func (m *Module) HasMigrate() bool {
	_, ok := m.compiled.ExportedFunctions()[abi.ExportMigrate]
	return ok
}

// HostImports lists the distinct host functions (module abi.ImportModule)
// the module imports, sorted.
func (m *Module) HostImports() []string {
	names := []string{}
	for _, f := range m.compiled.ImportedFunctions() {
		if mod, name, _ := f.Import(); mod == abi.ImportModule && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

type signature struct{ params, results []api.ValueType }

func (s signature) matches(d api.FunctionDefinition) bool {
	return equalTypes(s.params, d.ParamTypes()) && equalTypes(s.results, d.ResultTypes())
}

func (s signature) String() string {
	return fmt.Sprintf("(%s) -> (%s)", typeNames(s.params), typeNames(s.results))
}

// refusedStructure turns a CheckStructure error into a GuestError.
func refusedStructure(name string, err error) error {
	if errors.Is(err, ErrModuleLimit) {
		return &GuestError{Kind: ErrModuleLimit, Operator: name, Record: -1, Detail: err.Error(), Cause: err}
	}
	return &GuestError{Kind: ErrInvalidModule, Operator: name, Record: -1,
		Detail: "malformed module: " + err.Error() + " (build it as a WebAssembly module, e.g. GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared)", Cause: err}
}

func (m *Module) validate(ctx context.Context) error {
	if err := m.checkImports(); err != nil {
		return err
	}
	if err := m.checkExports(); err != nil {
		return err
	}
	if err := m.checkReactor(); err != nil {
		return err
	}
	return m.checkABIVersion(ctx)
}

// goReactorBuild is the Go SDK's documented build command (sdk/go/README.md).
const goReactorBuild = "GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o op.wasm ."

// checkReactor refuses a WASI command module: one that exports _start and
// no _initialize, as Go makes without -buildmode=c-shared. The WASI
// application ABI lets a command assume that its exports are called only
// while _start runs, which the host never calls; a Go command's exports
// trap with "unreachable" because its runtime is not initialised. Asking
// ws_abi_version first would report that trap instead of the fix.
func (m *Module) checkReactor() error {
	exports := m.compiled.ExportedFunctions()
	_, command := exports[abi.ExportWASICommandStart]
	if _, reactor := exports[abi.ExportWASIInitialize]; !command || reactor {
		return nil
	}
	return &GuestError{Kind: ErrMissingExport, Operator: m.name, Record: -1,
		Detail: "it is a WASI command module (it exports " + abi.ExportWASICommandStart + ", not " + abi.ExportWASIInitialize +
			"), whose exports cannot run before its main; operators are reactors: " +
			"Go: build it with `" + goReactorBuild + "` (-buildmode=c-shared is what was missing); " +
			"C: clang -mexec-model=reactor"}
}

func (m *Module) checkImports() error {
	var unknown []string
	for _, d := range m.compiled.ImportedFunctions() {
		mod, fn, _ := d.Import()
		if !importAllowed(mod, fn, d) {
			unknown = append(unknown, fmt.Sprintf("%s.%s%s", mod, fn, signature{d.ParamTypes(), d.ResultTypes()}))
		}
	}
	if len(m.compiled.ImportedMemories()) > 0 {
		unknown = append(unknown, "an imported memory (the module must define and export its own)")
	}
	if len(unknown) == 0 {
		return nil
	}
	return &GuestError{Kind: ErrUnknownImport, Operator: m.name, Record: -1,
		Detail: strings.Join(unknown, ", ") + "; the host provides module " + abi.ImportModule + " (see abi/ABI.md), wasi_snapshot_preview1 and env.abort"}
}

func importAllowed(mod, fn string, d api.FunctionDefinition) bool {
	switch mod {
	case "wasi_snapshot_preview1":
		return true // wazero resolves these and fails instantiation on a bad name
	case abi.ImportModule:
		sig, ok := hostSignatures[fn]
		return ok && sig.matches(d)
	case "env":
		return fn == "abort" && envAbortSignature.matches(d)
	}
	return false
}

func (m *Module) checkExports() error {
	exports := m.compiled.ExportedFunctions()
	var problems []string
	for _, name := range sortedKeys(exportSignatures) {
		want := exportSignatures[name]
		d, ok := exports[name]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s%s is not exported", name, want))
		case !want.matches(d):
			problems = append(problems, fmt.Sprintf("%s has signature %s, want %s", name, signature{d.ParamTypes(), d.ResultTypes()}, want))
		}
	}
	if d, ok := exports[abi.ExportMigrate]; ok && !migrateSignature.matches(d) {
		problems = append(problems, fmt.Sprintf("%s has signature %s, want %s", abi.ExportMigrate, signature{d.ParamTypes(), d.ResultTypes()}, migrateSignature))
	}
	if _, ok := m.compiled.ExportedMemories()[abi.ExportMemory]; !ok {
		problems = append(problems, `memory "memory" is not exported`)
	}
	if len(problems) == 0 {
		return nil
	}
	return &GuestError{Kind: ErrMissingExport, Operator: m.name, Record: -1,
		Detail: strings.Join(problems, "; ") + " (build with a wasmstream SDK, which provides them)"}
}

// checkABIVersion instantiates the module once, without init, and asks it.
func (m *Module) checkABIVersion(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, m.rt.cfg.ValidationTimeout)
	defer cancel()
	inst, err := m.instantiateRaw(ctx)
	if err != nil {
		return err
	}
	defer m.rt.guests.close(ctx, inst)
	res, err := inst.ExportedFunction(abi.ExportABIVersion).Call(ctx)
	if err != nil {
		return &GuestError{Kind: trapOrTimeout(err), Operator: m.name, Record: -1, Func: abi.ExportABIVersion, Detail: err.Error(), Cause: err}
	}
	if got := int32(res[0]); got != abi.Version {
		return &GuestError{Kind: ErrABIVersion, Operator: m.name, Record: -1,
			Detail: fmt.Sprintf("module was built for ABI v%d, this host speaks v%d; rebuild it with an SDK for ABI v%d", got, abi.Version, abi.Version)}
	}
	return nil
}

// instantiateRaw makes an anonymous instance and runs its WASI reactor
// initialiser, if any. Start functions other than the wasm start section
// are not run: operators are reactors.
func (m *Module) instantiateRaw(ctx context.Context) (api.Module, error) {
	return m.instantiate(ctx, io.Discard)
}

// instantiate is instantiateRaw with the guest's stdout and stderr captured
// into w (Go guests print their panic message there).
func (m *Module) instantiate(ctx context.Context, w io.Writer) (api.Module, error) {
	if err := m.usable(); err != nil {
		return nil, classifyInstantiate(m.name, err)
	}
	cfg := wazero.NewModuleConfig().WithName("").WithStartFunctions().WithStderr(w).WithStdout(w)
	inst, err := m.rt.rt.InstantiateModule(ctx, m.compiled, cfg)
	if err != nil {
		return nil, classifyInstantiate(m.name, err)
	}
	if err := m.rt.guests.add(ctx, inst); err != nil {
		return nil, classifyInstantiate(m.name, err)
	}
	if fn := inst.ExportedFunction(abi.ExportWASIInitialize); fn != nil {
		if _, err := fn.Call(ctx); err != nil {
			_ = m.rt.guests.close(ctx, inst)
			kind := trapOrTimeout(err)
			if kind == ErrTrap {
				kind = ErrInit
			}
			return nil, &GuestError{Kind: kind, Operator: m.name, Record: -1, Func: abi.ExportWASIInitialize, Detail: err.Error(), Cause: err}
		}
	}
	return inst, nil
}

func classifyInstantiate(op string, err error) error {
	kind := ErrInit
	if errors.Is(err, context.DeadlineExceeded) {
		kind = ErrTimeout
	} else if strings.Contains(err.Error(), "not exported in module") || strings.Contains(err.Error(), "import") {
		kind = ErrUnknownImport
	}
	return &GuestError{Kind: kind, Operator: op, Record: -1, Detail: "instantiate: " + err.Error(), Cause: err}
}

// trapOrTimeout classifies a failed guest call made under a deadline.
func trapOrTimeout(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return ErrTimeout
	}
	return ErrTrap
}

func equalTypes(a, b []api.ValueType) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func typeNames(ts []api.ValueType) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = api.ValueTypeName(t)
	}
	return strings.Join(names, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
