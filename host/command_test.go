package host

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// A Go operator built without -buildmode=c-shared is a WASI command
// module: its exports trap ("unreachable") until _start has initialised
// the Go runtime, which the host never runs. It is refused when it is
// loaded, with the build command that makes a reactor of it.
func TestGoCommandModuleIsRefusedWithTheFix(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go guest")
	}
	wasm, err := os.ReadFile(testutil.GoGuestCommand(t, "./conformance/operators/go/counter"))
	if err != nil {
		t.Fatal(err)
	}
	rt := newTestRuntime(t, EngineCompiler, 64)
	_, err = rt.Compile(context.Background(), "counter", wasm)
	if !errors.Is(err, ErrMissingExport) || errors.Is(err, ErrTrap) {
		t.Fatalf("got %v, want ErrMissingExport and no trap", err)
	}
	for _, part := range []string{`operator "counter"`, "WASI command module", "_start", "_initialize", goReactorBuild} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("message %q lacks %q", err, part)
		}
	}
}

// The command the refusal quotes is the one the Go SDK documents.
func TestReactorBuildCommandIsTheDocumentedOne(t *testing.T) {
	readme, err := os.ReadFile("../sdk/go/README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "\n    "+goReactorBuild+"\n") {
		t.Fatalf("sdk/go/README.md no longer documents %q", goReactorBuild)
	}
}
