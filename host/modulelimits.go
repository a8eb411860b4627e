package host

import "fmt"

// ModuleLimits bound the shape of a module: what wazero allocates while
// it decodes, validates and compiles it, and what its tables may grow to
// while it runs. The module size alone does not bound these: 8.9 KB
// declaring 1,000 functions of 50,000 locals each took over 4 GiB in
// operator push. The zero value of a field means its default; the defaults
// and the measurements behind them are in RATIONALE.md.
type ModuleLimits struct {
	// MaxFunctions bounds the functions, imported and defined.
	MaxFunctions uint32
	// MaxFunctionLocals bounds the locals one function declares.
	MaxFunctionLocals uint32
	// MaxLocals bounds the locals all functions declare together.
	MaxLocals uint64
	// MaxFunctionBytes bounds the code of one function body, in bytes.
	MaxFunctionBytes uint32
	// MaxCodeBytes bounds the code of all function bodies together, in
	// bytes: compiled code and the compilers' working memory grow with it.
	MaxCodeBytes uint64
	// MaxDeclarations bounds the types, imports and globals together:
	// wazero's compiler engine walks all of them for every function it
	// compiles, so compile time grows with them times the functions
	// (about 10 ns each: 1,000,000 types and 99,000 functions had not
	// compiled after 15 minutes).
	MaxDeclarations uint32
	// MaxEntries bounds the entries of the other sections together:
	// types, imports, globals, exports, tables, element and data
	// segments, tags (wazero keeps 90 to 360 bytes for each).
	MaxEntries uint32
	// MaxTableElements bounds the tables (the operator's
	// limits.max_table_elements): the declared maxima together may not
	// exceed it, and a table that declares none is given what the others
	// leave (see checkTables). wazero keeps 8 bytes per element and
	// enforces a declared maximum on table.grow, so an instance's tables
	// take at most 8 bytes times this.
	MaxTableElements uint32
}

// Defaults of ModuleLimits: 7 to 200 times what the largest shipped guest
// (the 3.7 MB Go operator of examples/payment-risk) has, and low enough
// that the worst module accepted costs about 1.3 GiB and 14 s to compile
// (RATIONALE.md, "Module limits"; BENCHMARKS.md).
const (
	DefaultMaxFunctions      = 100_000   // Go guest: 2,330
	DefaultMaxFunctionLocals = 50_000    // as browsers do
	DefaultMaxLocals         = 1_000_000 // Go guest: 9,553
	DefaultMaxFunctionBytes  = 512 << 10 // Go guest: 29,238
	DefaultMaxCodeBytes      = 16 << 20  // Go guest: 2,295,203
	DefaultMaxDeclarations   = 10_000    // Go guest: 48
	DefaultMaxEntries        = 1_000_000 // Go guest: 39,902, nearly all data segments
	DefaultMaxTableElements  = 100_000   // Go guest: a table of 6,403
)

// MaxTableElementsLimit is the largest MaxTableElements: wazero's own
// bound on a table's size (2^27 elements, 1 GiB of references).
const MaxTableElementsLimit = 1 << 27

func (l ModuleLimits) withDefaults() ModuleLimits {
	l.MaxFunctions = orDefault(l.MaxFunctions, DefaultMaxFunctions)
	l.MaxFunctionLocals = orDefault(l.MaxFunctionLocals, DefaultMaxFunctionLocals)
	l.MaxLocals = orDefault(l.MaxLocals, DefaultMaxLocals)
	l.MaxFunctionBytes = orDefault(l.MaxFunctionBytes, DefaultMaxFunctionBytes)
	l.MaxCodeBytes = orDefault(l.MaxCodeBytes, DefaultMaxCodeBytes)
	l.MaxDeclarations = orDefault(l.MaxDeclarations, DefaultMaxDeclarations)
	l.MaxEntries = orDefault(l.MaxEntries, DefaultMaxEntries)
	l.MaxTableElements = min(orDefault(l.MaxTableElements, DefaultMaxTableElements), MaxTableElementsLimit)
	return l
}

func orDefault[T uint32 | uint64](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// String prints the effective limits.
func (l ModuleLimits) String() string {
	l = l.withDefaults()
	return fmt.Sprintf("functions %d, locals %d per function and %d in all, code %d bytes per function and %d in all, "+
		"%d types, imports and globals, %d section entries, table elements %d",
		l.MaxFunctions, l.MaxFunctionLocals, l.MaxLocals, l.MaxFunctionBytes, l.MaxCodeBytes, l.MaxDeclarations, l.MaxEntries, l.MaxTableElements)
}

// limitError is a module over one of the ModuleLimits; it wraps
// ErrModuleLimit.
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }
func (e *limitError) Unwrap() error { return ErrModuleLimit }

func limitf(format string, args ...any) error {
	return &limitError{msg: fmt.Sprintf(format, args...)}
}

// checkTables bounds the defined tables: wazero allocates 8 bytes per
// element at instantiation and on table.grow, and only a declared maximum
// stops table.grow. A declared maximum must be within the limit. A table
// without one (Go's linker declares none) is given the elements the limit
// leaves (shared out if several lack one), which Compile writes into the
// module it hands to wazero, as wazero itself does for a memory without a
// maximum.
func (l ModuleLimits) checkTables(s *Shape) error {
	var bounded, unboundedMin uint64
	unbounded := 0
	for i, t := range s.tables {
		switch {
		case t.hasMax && t.max > l.MaxTableElements:
			return limitf("table %d of the table section declares a maximum of %d elements, over the limit of %d (limits.max_table_elements); "+
				"lower the module's table maximum, or raise the limit", i, t.max, l.MaxTableElements)
		case t.hasMax:
			bounded += uint64(t.max)
		default:
			unboundedMin += uint64(t.min)
			unbounded++
		}
	}
	if need := bounded + unboundedMin; need > uint64(l.MaxTableElements) {
		return limitf("the module's tables need %d elements, over the limit of %d (limits.max_table_elements); "+
			"lower their sizes, or raise the limit", need, l.MaxTableElements)
	}
	share := uint32(0)
	if unbounded > 0 {
		share = uint32((uint64(l.MaxTableElements) - bounded - unboundedMin) / uint64(unbounded))
	}
	for i := range s.tables {
		t := &s.tables[i]
		if !t.hasMax {
			t.max, t.grant = t.min+share, true
			s.UnboundedTables++
		}
		s.TableElements += uint64(t.max)
	}
	return nil
}

// check refuses a shape over the limits. Its messages say which limit and
// what to change.
func (l ModuleLimits) check(s *Shape) error {
	const fix = "; build the operator with less code (fewer dependencies, dead code removed) or split it"
	switch functions := uint64(s.ImportedFunctions) + uint64(s.Functions); {
	case functions > uint64(l.MaxFunctions):
		return limitf("the module has %d functions (%d imported, %d defined), over the limit of %d%s",
			functions, s.ImportedFunctions, s.Functions, l.MaxFunctions, fix)
	case s.Locals > l.MaxLocals:
		return limitf("the module's functions declare %d locals in all, over the limit of %d%s", s.Locals, l.MaxLocals, fix)
	case s.LargestBody > l.MaxFunctionBytes:
		return limitf("function body %d has %d bytes of code, over the limit of %d bytes per function; split the function",
			s.LargestBodyIndex, s.LargestBody, l.MaxFunctionBytes)
	case s.CodeBytes > l.MaxCodeBytes:
		return limitf("the module's functions have %d bytes of code in all, over the limit of %d bytes%s", s.CodeBytes, l.MaxCodeBytes, fix)
	}
	if err := l.checkEntries(s); err != nil {
		return err
	}
	return l.checkTables(s)
}

// checkEntries bounds the declarations and the other sections' entries.
func (l ModuleLimits) checkEntries(s *Shape) error {
	if n := uint64(s.Types) + uint64(s.Imports) + uint64(s.Globals); n > uint64(l.MaxDeclarations) {
		return limitf("the module declares %d types, imports and globals together (%d, %d, %d), over the limit of %d: "+
			"compiling every function walks them all", n, s.Types, s.Imports, s.Globals, l.MaxDeclarations)
	}
	if n := s.Entries(); n > uint64(l.MaxEntries) {
		return limitf("the module has %d entries in its type, import, global, export, table, element, data and tag sections together, "+
			"over the limit of %d (%d types, %d imports, %d globals, %d exports, %d data segments)",
			n, l.MaxEntries, s.Types, s.Imports, s.Globals, s.Exports, s.Datas)
	}
	return nil
}
