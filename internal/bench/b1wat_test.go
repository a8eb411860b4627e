package bench

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// BenchmarkB1WAT runs a hand-written WAT counter (get, put, emit per record)
// in the B1 harness: the host's share of the cost without any guest runtime.
func BenchmarkB1WAT(b *testing.B) {
	recs := b1Records()
	backend := b1Backend(b)
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.RuntimeConfig{})
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(ctx)
	wasm, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(b), "host", "testdata", "hostile.wasm"))
	if err != nil {
		b.Fatal(err)
	}
	mod, err := rt.Compile(ctx, "b1-wat", wasm)
	if err != nil {
		b.Fatal(err)
	}
	inst, err := mod.Instantiate(ctx, host.InstanceConfig{Operator: "b1-wat", Outputs: []string{"out"}}, backend)
	if err != nil {
		b.Fatal(err)
	}
	runB1(b, recs, func(batch []host.Record) (int, error) {
		outs, err := inst.Process(ctx, batch)
		return len(outs), err
	})
}
