package acceptance

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/wasmstream/wasmstream/internal/clustertest"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

func TestMain(m *testing.M) {
	// The cluster's nodes are this binary re-executed: they must never
	// reach the tests (clustertest's doc).
	clustertest.RunNodeIfChild()
	os.Exit(runTests(m))
}

// built is the wasmstream CLI, built once per test binary by the first
// test that needs it, so the checkers' own tests do not wait for a build.
var built struct {
	once sync.Once
	dir  string // set by runTests, removed after the tests
	path string
	err  error
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "wasmstream-acceptance-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "acceptance:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	built.dir = dir
	return m.Run()
}

// cliPath returns the path of the wasmstream CLI built from this checkout.
func cliPath(t testing.TB) string {
	t.Helper()
	root := testutil.ModuleRoot(t) // outside once.Do: its Fatalf must not mark the build done
	built.once.Do(func() {
		built.path = filepath.Join(built.dir, "wasmstream")
		cmd := exec.Command("go", "build", "-o", built.path, "./cmd/wasmstream")
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("build the CLI in %s: %v\n%s", root, err, b)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}
