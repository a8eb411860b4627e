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
	inst := watInstance(b, "hostile.wasm", nil)
	runB1(b, recs, func(batch []host.Record) (int, error) {
		outs, err := inst.Process(context.Background(), batch)
		return len(outs), err
	})
}

// BenchmarkB1WATEmitBatch is BenchmarkB1WAT with the emits collected in
// guest memory and handed over once per batch (ABI revision 1.3,
// emit_batch): per record, one host call fewer.
func BenchmarkB1WATEmitBatch(b *testing.B) {
	recs := b1Records()
	inst := watInstance(b, "emitbatch.wasm", nil)
	runB1(b, recs, func(batch []host.Record) (int, error) {
		outs, err := inst.Process(context.Background(), batch)
		return len(outs), err
	})
}

// BenchmarkB1Steps runs the B1 operator of host/testdata/b1steps.wat one
// host call at a time: record_next alone, then with state_get, state_put
// and emit added. The differences between the sub-benchmarks are what each
// call costs per record in the B1 harness (the first also holds the batch
// encoding, its copy into the guest and the ws_process call). Steps that do
// not emit are credited one output per record so the harness's check holds.
func BenchmarkB1Steps(b *testing.B) {
	recs := b1Records()
	for i, name := range []string{"record_next", "+state_get", "+state_put", "+emit"} {
		steps := byte(i + 1)
		b.Run(name, func(b *testing.B) {
			inst := watInstance(b, "b1steps.wasm", []byte{steps})
			runB1(b, recs, func(batch []host.Record) (int, error) {
				outs, err := inst.Process(context.Background(), batch)
				if steps < 4 {
					return len(batch), err
				}
				return len(outs), err
			})
		})
	}
}

// watInstance instantiates host/testdata/<file> with config over a fresh
// B1 state backend, with one output "out".
func watInstance(b *testing.B, file string, config []byte) *host.Instance {
	b.Helper()
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.RuntimeConfig{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = rt.Close(ctx) })
	wasm, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(b), "host", "testdata", file))
	if err != nil {
		b.Fatal(err)
	}
	mod, err := rt.Compile(ctx, file, wasm)
	if err != nil {
		b.Fatal(err)
	}
	inst, err := mod.Instantiate(ctx, host.InstanceConfig{Operator: file, Config: config, Outputs: []string{"out"}}, b1Backend(b))
	if err != nil {
		b.Fatal(err)
	}
	return inst
}
