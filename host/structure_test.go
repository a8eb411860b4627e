package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmstream/wasmstream/internal/testutil"
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
		"locals":              module(section(10, 1, 7, 1, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x7f, 0x0b)),
		"locals in groups":    module(section(10, 1, 9, 2, 0xb0, 0xea, 0x01, 0x7f, 0xb0, 0xea, 0x01, 0x7f, 0x0b)),
		"name subsection":     module(section(0, append([]byte{4, 'n', 'a', 'm', 'e', 1, 5}, huge...)...)),
		"section size":        module([]byte{1, 0xff, 0xff, 0x03}),
		"truncated leb":       module([]byte{1, 0x80}),
		"overlong leb":        module(section(1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01)),
		"no header":           []byte("asm"),
	} {
		if err := CheckStructure(wasm); !IsStructureError(err) {
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
		if err := CheckStructure(readFixture(t, filepath.Base(p))); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if err := CheckStructure(testutil.GoGuestBytes(t, "./internal/testguests/bench")); err != nil {
		t.Errorf("Go guest: %v", err)
	}
	if err := CheckStructure(module(section(8, 62))); err != nil { // start: function 62, not a vector
		t.Errorf("start section: %v", err)
	}
	ok := module(section(10, 1, 6, 1, 0xb0, 0xea, 0x01, 0x7f, 0x0b)) // 30,000 locals
	if err := CheckStructure(ok); err != nil {
		t.Errorf("30,000 locals: %v", err)
	}
}

func FuzzCheckStructure(f *testing.F) {
	f.Add(module(section(1, 0)))
	f.Add(module(section(0, 4, 'n', 'a', 'm', 'e', 1, 1, 0)))
	f.Add(module(section(10, 1, 4, 1, 2, 0x7f, 0x0b)))
	f.Fuzz(func(t *testing.T, wasm []byte) {
		_ = CheckStructure(wasm) // must not panic or loop
	})
}
