package host

import (
	"context"
	"errors"
	"testing"

	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/internal/wasmgen"
)

// abiFunctions are the functions every wasmgen module defines besides
// its fillers.
const abiFunctions = 4

// calls is a filler body of n bytes (the locals declaration and end
// included) of calls, the code that costs wazero's compiler the most.
func calls(functions, n int) wasmgen.Shape {
	return wasmgen.Shape{Functions: functions, BodyBytes: n - 2, Code: wasmgen.CodeCalls}
}

// limitShapes are modules just over each default limit, and the same
// shape just within it. Each over one cost gigabytes, minutes or both
// before the limits existed (BENCHMARKS.md, "Module limits").
var limitShapes = []struct {
	name        string
	over, under wasmgen.Shape
}{
	{"functions", wasmgen.Shape{Functions: DefaultMaxFunctions - abiFunctions + 1}, wasmgen.Shape{Functions: DefaultMaxFunctions - abiFunctions}},
	{"locals of one function", wasmgen.Shape{Functions: 1, Locals: DefaultMaxFunctionLocals + 1}, wasmgen.Shape{Functions: 1, Locals: DefaultMaxFunctionLocals}},
	{"locals in all", wasmgen.Shape{Functions: 21, Locals: DefaultMaxFunctionLocals}, wasmgen.Shape{Functions: 20, Locals: DefaultMaxFunctionLocals}},
	{"code of one function", calls(1, DefaultMaxFunctionBytes+2), calls(1, DefaultMaxFunctionBytes)},
	{"code in all", calls(DefaultMaxCodeBytes/DefaultMaxFunctionBytes+1, DefaultMaxFunctionBytes), calls(DefaultMaxCodeBytes/DefaultMaxFunctionBytes-1, DefaultMaxFunctionBytes)},
	{"types", wasmgen.Shape{Types: DefaultMaxDeclarations - 3}, wasmgen.Shape{Types: DefaultMaxDeclarations - 4}},
	{"globals", wasmgen.Shape{Globals: DefaultMaxDeclarations}, wasmgen.Shape{Globals: DefaultMaxDeclarations - 4}},
	{"data segments", wasmgen.Shape{DataSegments: DefaultMaxEntries}, wasmgen.Shape{DataSegments: DefaultMaxEntries - 9}},
	{"table maximum", wasmgen.Shape{Table: true, TableMin: 1, TableMax: DefaultMaxTableElements + 1}, wasmgen.Shape{Table: true, TableMin: 1, TableMax: DefaultMaxTableElements}},
	{"table minimum", wasmgen.Shape{Table: true, TableMin: DefaultMaxTableElements + 1, TableMax: -1}, wasmgen.Shape{Table: true, TableMin: DefaultMaxTableElements, TableMax: -1}},
}

// TestModuleLimitsRefuseShapesOverThem: a module over a limit is refused
// by the structural check, so Compile refuses it before wazero decodes
// it; the same shape within the limit passes the check.
func TestModuleLimitsRefuseShapesOverThem(t *testing.T) {
	rt := newTestRuntime(t, EngineCompiler, 64)
	for _, tc := range limitShapes {
		t.Run(tc.name, func(t *testing.T) {
			over := wasmgen.Module(tc.over)
			_, err := CheckStructure(over, ModuleLimits{})
			if !errors.Is(err, ErrModuleLimit) || IsStructureError(err) {
				t.Fatalf("CheckStructure: %v, want ErrModuleLimit", err)
			}
			_, err = rt.Compile(context.Background(), "shape", over)
			if !errors.Is(err, ErrModuleLimit) {
				t.Fatalf("Compile: %v, want ErrModuleLimit", err)
			}
			t.Log(err)
			if _, err := CheckStructure(wasmgen.Module(tc.under), ModuleLimits{}); err != nil {
				t.Fatalf("within the limit: %v", err)
			}
		})
	}
}

// TestHugeLocalCountsAreRefused: a locals count of 2^32-1 in one
// declaration, or counts that add up past the limit in several, are
// refused as the body is read, before the sum can grow further.
func TestHugeLocalCountsAreRefused(t *testing.T) {
	for name, wasm := range map[string][]byte{
		"one group":  module(section(10, 1, 7, 1, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x7f, 0x0b)),
		"two groups": module(section(10, 1, 9, 2, 0xb0, 0xea, 0x01, 0x7f, 0xb0, 0xea, 0x01, 0x7f, 0x0b)), // 2 × 30,000
	} {
		if _, err := CheckStructure(wasm, ModuleLimits{}); !errors.Is(err, ErrModuleLimit) {
			t.Errorf("%s: %v, want ErrModuleLimit", name, err)
		}
	}
}

// TestModuleLimitsAreSettable: a limit set lower refuses what the default
// accepts, and one set higher accepts what the default refuses; String
// prints the effective limits.
func TestModuleLimitsAreSettable(t *testing.T) {
	tables := wasmgen.Module(wasmgen.Shape{Table: true, TableMin: 1, TableMax: 500})
	if _, err := CheckStructure(tables, ModuleLimits{MaxTableElements: 499}); !errors.Is(err, ErrModuleLimit) {
		t.Errorf("table of 500 at a limit of 499: %v, want ErrModuleLimit", err)
	}
	many := wasmgen.Module(wasmgen.Shape{Functions: DefaultMaxFunctions})
	if _, err := CheckStructure(many, ModuleLimits{MaxFunctions: 2 * DefaultMaxFunctions}); err != nil {
		t.Errorf("functions at a raised limit: %v", err)
	}
	want := "functions 100000, locals 50000 per function and 1000000 in all, code 524288 bytes per function and 16777216 in all, " +
		"10000 types, imports and globals, 1000000 section entries, table elements 7"
	if s := (ModuleLimits{MaxTableElements: 7}).String(); s != want {
		t.Errorf("String() = %q, want %q", s, want)
	}
}

// TestTablesTogetherAreBounded: the tables' maxima add up against the
// limit, and a table without a maximum gets what the others leave.
func TestTablesTogetherAreBounded(t *testing.T) {
	lim := ModuleLimits{MaxTableElements: 3000}
	bounded := module(section(4, 2, 0x70, 1, 0, 0xd0, 0x0f, 0x70, 1, 0, 0xd0, 0x0f)) // two tables of max 2000
	if _, err := CheckStructure(bounded, lim); !errors.Is(err, ErrModuleLimit) {
		t.Errorf("two tables of 2000 at a limit of 3000: %v, want ErrModuleLimit", err)
	}
	mixed := module(section(4, 2, 0x70, 1, 0, 0xd0, 0x0f, 0x70, 0, 0xe8, 0x07)) // max 2000; min 1000, no maximum
	s, err := CheckStructure(mixed, lim)
	if err != nil || s.UnboundedTables != 1 || s.TableElements != 3000 {
		t.Fatalf("tables of max 2000 and min 1000 without maximum at 3000: %v, %d unbounded, %d elements; want nil, 1, 3000",
			err, s.UnboundedTables, s.TableElements)
	}
	patched, err := CheckStructure(boundTables(mixed, &s), lim)
	if err != nil || patched.UnboundedTables != 0 || patched.TableElements != 3000 {
		t.Fatalf("patched: %v, %d unbounded, %d elements; want nil, 0, 3000", err, patched.UnboundedTables, patched.TableElements)
	}
}

// TestTableWithoutMaximumCannotGrowPastTheLimit: a table that declares no
// maximum, as Go's linker makes them, loads and grows up to the limit,
// and no further: a table.grow of 2^28 elements (2 GiB in the host) fails
// in the guest (-1) instead of allocating.
func TestTableWithoutMaximumCannotGrowPastTheLimit(t *testing.T) {
	for _, engine := range engines {
		t.Run(string(engine), func(t *testing.T) {
			for _, tc := range []struct {
				grow int
				want int32 // ws_process returns table.grow's result
			}{{DefaultMaxTableElements - 3, 3}, {1 << 28, -1}} {
				rt := newTestRuntime(t, engine, 64)
				m, err := rt.Compile(context.Background(), "grow", wasmgen.Module(wasmgen.Shape{Table: true, TableMin: 3, TableMax: -1, Grow: tc.grow}))
				if err != nil {
					t.Fatal(err)
				}
				inst, err := m.Instantiate(context.Background(), InstanceConfig{Operator: "grow"}, newMemState())
				if err != nil {
					t.Fatal(err)
				}
				_, err = inst.Process(context.Background(), records("a"))
				var ge *GuestError
				if !errors.As(err, &ge) || int32(ge.Code) != tc.want {
					t.Fatalf("table.grow %d: %v, want ws_process to return %d", tc.grow, err, tc.want)
				}
			}
		})
	}
}

// TestShippedGuestsAreFarFromTheLimits prints the shape of the largest
// shipped guests and requires a margin of at least 5 to every limit, so
// that a guest growing towards a limit is noticed here first.
func TestShippedGuestsAreFarFromTheLimits(t *testing.T) {
	lim := ModuleLimits{}.withDefaults()
	for _, pkg := range []string{"./examples/payment-risk/operator", "./examples/payment-limits/operator", "./examples/payment-graph/accounts"} {
		wasm := testutil.GoGuestBytes(t, pkg)
		s, err := CheckStructure(wasm, lim)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		t.Logf("%s (%d bytes): %v", pkg, len(wasm), s)
		for _, c := range []struct {
			what        string
			have, limit uint64
		}{
			{"functions", uint64(s.ImportedFunctions) + uint64(s.Functions), uint64(lim.MaxFunctions)},
			{"locals", s.Locals, lim.MaxLocals},
			{"largest body", uint64(s.LargestBody), uint64(lim.MaxFunctionBytes)},
			{"code bytes", s.CodeBytes, lim.MaxCodeBytes},
			{"types, imports and globals", uint64(s.Types) + uint64(s.Imports) + uint64(s.Globals), uint64(lim.MaxDeclarations)},
			{"entries", s.Entries(), uint64(lim.MaxEntries)},
			{"table elements (declared minimum)", uint64(minTable(&s)), uint64(lim.MaxTableElements)},
		} {
			if c.have*5 > c.limit {
				t.Errorf("%s: %s %d, within 5 times of the limit %d: raise the default or shrink the guest", pkg, c.what, c.have, c.limit)
			}
		}
	}
}

// minTable is the declared minimum of the module's first table.
func minTable(s *Shape) uint32 {
	if len(s.tables) == 0 {
		return 0
	}
	return s.tables[0].min
}
