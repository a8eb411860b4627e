package crashtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// cliPath is the wasmstream binary TestMain builds for every test.
var cliPath string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

// runTests builds the CLI into a temporary directory, runs the tests and
// removes the directory.
func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "wasmstream-crashtest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "crashtest:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	cliPath = filepath.Join(dir, "wasmstream")
	compiled.dir = filepath.Join(dir, "compiled")
	if err := buildCLI(cliPath); err != nil {
		fmt.Fprintln(os.Stderr, "crashtest:", err)
		return 1
	}
	return m.Run()
}

func buildCLI(out string) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	cmd := exec.Command("go", "build", "-o", out, "./cmd/wasmstream")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build the CLI: %v\n%s", err, b)
	}
	return nil
}

// moduleRoot asks testutil.ModuleRoot, which wants a testing.TB: TestMain
// has none, so mainTB stands in and turns its Fatalf into an error.
func moduleRoot() (root string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("module root: %v", r)
		}
	}()
	return testutil.ModuleRoot(mainTB{}), nil
}

// mainTB is the testing.TB of code that runs before any test. Only the
// methods ModuleRoot calls are implemented; the embedded nil interface
// satisfies the rest.
type mainTB struct{ testing.TB }

func (mainTB) Helper() {}

func (mainTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
