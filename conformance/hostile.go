package conformance

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/wasmstream/wasmstream/abi"
)

// Surfaces: where a hostile module's error must appear.
const (
	SurfaceCompile     = "compile"     // host.Runtime.Compile
	SurfaceInstantiate = "instantiate" // host.Module.Instantiate
	SurfaceProcess     = "process"     // host.Instance.Process
)

// ErrHostileTable is wrapped by every problem with hostile/expect.txt.
var ErrHostileTable = errors.New("invalid hostile table")

// ErrNoWat2Wasm: wabt's wat2wasm is not installed.
var ErrNoWat2Wasm = errors.New("wat2wasm not found: install wabt (scripts/install-toolchains.sh or apt-get install wabt)")

// Hostile is one row of hostile/expect.txt: a module and the typed error it
// must end in.
type Hostile struct {
	Module  string // file name without .wat
	Surface string
	Kind    error // a host sentinel
	Code    abi.Code
	Func    string // "" for none
	Record  int
	Line    int // in the table, for messages
}

// ParseHostileTable reads the table: one row per line, six columns
// separated by spaces (module surface kind code func record); '#' starts
// a comment, blank lines are skipped.
func ParseHostileTable(r io.Reader) ([]Hostile, error) {
	var rows []Hostile
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		h, err := parseHostileRow(fields)
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrHostileTable, n, err)
		}
		if prev, dup := seen[h.Module]; dup {
			return nil, fmt.Errorf("%w: line %d: module %s already has a row on line %d", ErrHostileTable, n, h.Module, prev)
		}
		seen[h.Module], h.Line = n, n
		rows = append(rows, h)
	}
	return rows, sc.Err()
}

func parseHostileRow(f []string) (Hostile, error) {
	if len(f) != 6 {
		return Hostile{}, fmt.Errorf("%d columns, want 6: module surface kind code func record", len(f))
	}
	h := Hostile{Module: f[0], Surface: f[1]}
	switch h.Surface {
	case SurfaceCompile, SurfaceInstantiate, SurfaceProcess:
	default:
		return h, fmt.Errorf("surface %q is not compile, instantiate or process", h.Surface)
	}
	var ok bool
	if h.Kind, ok = KindError(f[2]); !ok {
		return h, fmt.Errorf("kind %q is not one of %v", f[2], KindNames())
	}
	var err error
	if h.Code, err = ParseCode(f[3]); err != nil {
		return h, err
	}
	if f[4] != "-" {
		h.Func = f[4]
	}
	if h.Record, err = strconv.Atoi(f[5]); err != nil || h.Record < -1 {
		return h, fmt.Errorf("record %q is not a record index or -1", f[5])
	}
	return h, nil
}

// watFlagsDirective marks a first-line comment with extra wat2wasm flags,
// e.g. --no-check for a module that must be invalid.
const watFlagsDirective = ";; wat2wasm-flags:"

// BuildWat compiles src (a .wat file) to dst with wat2wasm, adding the
// flags of the file's wat2wasm-flags directive.
func BuildWat(src, dst string) error {
	tool, err := exec.LookPath("wat2wasm")
	if err != nil {
		return ErrNoWat2Wasm
	}
	text, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	args := append(watFlags(text), src, "-o", dst)
	if out, err := exec.Command(tool, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("wat2wasm %s: %v\n%s", filepath.Base(src), err, out)
	}
	return nil
}

func watFlags(text []byte) []string {
	first, _, _ := bytes.Cut(text, []byte("\n"))
	if rest, ok := bytes.CutPrefix(first, []byte(watFlagsDirective)); ok {
		return strings.Fields(string(rest))
	}
	return nil
}
