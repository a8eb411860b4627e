package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/internal/wasmgen"
)

// module builds a module from the header and raw sections.
func module(sections ...[]byte) []byte {
	out := []byte("\x00asm\x01\x00\x00\x00")
	for _, s := range sections {
		out = append(out, s...)
	}
	return out
}

// section is id, LEB128 size, payload (sizes < 128 here).
func section(id byte, payload ...byte) []byte {
	return append([]byte{id, byte(len(payload))}, payload...)
}

// TestCheckStructureRefusesAmplification: counts that claim more entries
// than the bytes left are refused before wazero allocates for them; the
// fixture found by fuzzing costs wazero ~12 GB otherwise.
func TestCheckStructureRefusesAmplification(t *testing.T) {
	fixture, err := os.ReadFile("testdata/amplify-export-count.bin")
	if err != nil {
		t.Fatal(err)
	}
	huge := []byte{0xff, 0xff, 0xff, 0xff, 0x0f} // 2^32-1
	for name, wasm := range map[string][]byte{
		"fuzzed export count": fixture,
		"type count":          module(section(1, huge...)),
		"import count":        module(section(2, huge...)),
		"code count":          module(section(10, huge...)),
		"data count":          module(section(12, huge...)),
		"name subsection":     module(section(0, append([]byte{4, 'n', 'a', 'm', 'e', 1, 5}, huge...)...)),
		"section size":        module([]byte{1, 0xff, 0xff, 0x03}),
		"truncated leb":       module([]byte{1, 0x80}),
		"overlong leb":        module(section(1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01)),
		"no header":           []byte("asm"),
	} {
		if _, err := CheckStructure(wasm, ModuleLimits{}); !IsStructureError(err) {
			t.Errorf("%s: %v, want a structure error", name, err)
		}
		_, err := newTestRuntime(t, EngineInterpreter, 64).Compile(context.Background(), "m", wasm)
		if !errors.Is(err, ErrInvalidModule) {
			t.Errorf("%s: Compile: %v, want ErrInvalidModule", name, err)
		}
	}
}

// TestCheckStructureAcceptsRealModules: every fixture and a Go guest pass.
func TestCheckStructureAcceptsRealModules(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*.wasm")
	for _, p := range paths {
		if _, err := CheckStructure(readFixture(t, filepath.Base(p)), ModuleLimits{}); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, err := CheckStructure(testutil.GoGuestBytes(t, "./internal/testguests/bench"), ModuleLimits{}); err != nil {
		t.Errorf("Go guest: %v", err)
	}
	if _, err := CheckStructure(module(section(8, 62)), ModuleLimits{}); err != nil { // start: function 62, not a vector
		t.Errorf("start section: %v", err)
	}
	ok := module(section(10, 1, 6, 1, 0xb0, 0xea, 0x01, 0x7f, 0x0b)) // 30,000 locals
	if _, err := CheckStructure(ok, ModuleLimits{}); err != nil {
		t.Errorf("30,000 locals: %v", err)
	}
}

// FuzzCheckStructure: CheckStructure never panics or loops, and the
// maxima it grants tables that declare none, written in by boundTables,
// make a module that passes again with every table bounded.
func FuzzCheckStructure(f *testing.F) {
	f.Add(module(section(1, 0)))
	f.Add(module(section(0, 4, 'n', 'a', 'm', 'e', 1, 1, 0)))
	f.Add(module(section(10, 1, 4, 1, 2, 0x7f, 0x0b)))
	for _, seed := range shapeSeeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, wasm []byte) {
		s, err := CheckStructure(wasm, ModuleLimits{})
		if err != nil || s.UnboundedTables == 0 {
			return
		}
		bounded, err := CheckStructure(boundTables(wasm, &s), ModuleLimits{})
		if err != nil || bounded.UnboundedTables != 0 || bounded.TableElements != s.TableElements {
			t.Fatalf("bounded tables: %v, %d unbounded, %d elements, want nil, 0, %d", err, bounded.UnboundedTables, bounded.TableElements, s.TableElements)
		}
	})
}

// shapeSeeds are small modules with every section CheckStructure reads.
func shapeSeeds() [][]byte {
	imports := []byte{4,
		0, 0, 0, 0, // func, type 0
		0, 0, 1, 0x70, 0, 1, // table funcref, min 1, no max
		0, 0, 2, 1, 1, 2, // memory 1..2
		0, 0, 3, 0x63, 0x70, 0} // global (ref null func), immutable
	return [][]byte{
		wasmgen.Module(wasmgen.Shape{Table: true, TableMin: 3, TableMax: -1}),
		wasmgen.Module(wasmgen.Shape{Table: true, TableMin: 1, TableMax: 10}),
		wasmgen.Module(wasmgen.Shape{Functions: 3, Locals: 40, BodyBytes: 9, Globals: 2, DataSegments: 2, Types: 1}),
		module(section(1, 1, 0x60, 0, 0), section(2, imports...)),
		module(section(4, 2, 0x70, 0, 5, 0x6f, 1, 0, 7)), // two tables, one without max
	}
}
