package conformance

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// watModule builds hostile/<name>.wat; without wat2wasm it fails under CI
// and skips elsewhere.
func watModule(t *testing.T, name string) []byte {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name+".wasm")
	err := BuildWat(filepath.Join("hostile", name+".wat"), dst)
	switch {
	case errors.Is(err, ErrNoWat2Wasm) && testutil.InCI():
		t.Fatal(err)
	case errors.Is(err, ErrNoWat2Wasm):
		t.Skip(err)
	case err != nil:
		t.Fatal(err)
	}
	b, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// compileWat compiles hostile/<name>.wat on a fresh interpreter runtime
// (compiling is cheapest there).
func compileWat(t *testing.T, name string) *host.Module {
	t.Helper()
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.RuntimeConfig{Engine: host.EngineInterpreter, MemoryLimitPages: hostilePages})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(ctx) })
	mod, err := rt.Compile(ctx, name, watModule(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return mod
}

func tempStore(t *testing.T) *state.Store {
	t.Helper()
	store, err := state.Open(t.TempDir(), state.Options{CacheSizeBytes: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	return store
}
