package conformance

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/wasmstream/wasmstream/host"
)

// Languages are the SDK languages whose reference operators the suite runs.
// Go's are built by the tests themselves; the others by their build script.
var Languages = []string{"go", "rust", "c", "assemblyscript"}

// Engines are the wazero engines every case runs on.
var Engines = []host.Engine{host.EngineCompiler, host.EngineInterpreter}

// GoOperatorPackage returns the Go package of a Go reference operator,
// relative to the module root.
func GoOperatorPackage(op string) string { return "./conformance/operators/go/" + op }

// ModulePath returns where the build script of lang writes operator op,
// relative to the conformance directory.
func ModulePath(lang, op string) string { return filepath.Join("build", lang, op+".wasm") }

// BuildScript returns the script that builds lang's modules, relative to
// the module root.
func BuildScript(lang string) string { return "scripts/build-" + lang + ".sh" }

// PrebuiltModules reads lang's operators from dir (the conformance
// directory). It returns the modules it found and the paths it did not.
func PrebuiltModules(dir, lang string) (found map[string][]byte, missing []string, err error) {
	found = map[string][]byte{}
	for _, op := range Operators {
		p := filepath.Join(dir, ModulePath(lang, op))
		b, err := os.ReadFile(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			missing = append(missing, p)
		case err != nil:
			return nil, nil, fmt.Errorf("read %s module %s: %w", lang, p, err)
		default:
			found[op] = b
		}
	}
	return found, missing, nil
}

// MissingMessage explains how to get the missing modules of lang.
func MissingMessage(lang string, missing []string) string {
	return fmt.Sprintf("%s: %d of %d reference modules missing (%v); build them with %s (CI builds every language and fails on a missing module)",
		lang, len(missing), len(Operators), missing, BuildScript(lang))
}
