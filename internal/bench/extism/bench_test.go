package extism

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/bench/b1"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// BenchmarkExtismB1 runs the B1 keyed counter (per record: get the key's
// count, add one, put it, emit one output) in the B1 harness three ways,
// over the same records and a fresh state backend each:
//   - extism-go: the Go plug-in ./guest through Extism's Go SDK, one
//     Plugin.Call per record, state through Extism host functions, the
//     SDK's defaults (no deadline, so no cancellation checks);
//   - extism-go-timeout: the same with the manifest's timeout_ms set to
//     wasmstream's batch deadline, so that, as in wasmstream, the code is
//     compiled with wazero's close-on-context-done checks;
//   - wasmstream-go: the Go guest internal/testguests/bench through the
//     batch ABI (host.Instance.Process per batch of b1.BatchSize records,
//     each batch with its deadline, as in production);
//   - wasmstream-wat: the hand-written WAT counter host/testdata/hostile.wasm
//     (mode 0) through the batch ABI: the host's share without a guest runtime.
//
// Compare the ns/record metrics (ns/op is the whole b.N).
//
// EXTISM_FIRST=wasmstream runs the wasmstream cases first;
// scripts/bench-extism.sh alternates the order from one invocation to the
// next so that a drift of the machine's load does not always favour one side.
func BenchmarkExtismB1(b *testing.B) {
	recs := b1.Records()
	cases := []struct {
		name string
		run  func(b *testing.B)
	}{
		{"extism-go", func(b *testing.B) {
			runPerRecord(b, recs, newExtismCounter(b, b1.Backend(b), 0).process)
		}},
		{"extism-go-timeout", func(b *testing.B) {
			runPerRecord(b, recs, newExtismCounter(b, b1.Backend(b), extismTimeoutMS).process)
		}},
		{"wasmstream-go", func(b *testing.B) {
			runPerRecord(b, recs, processBatches(wasmstreamInstance(b, b1.Backend(b), goGuest(b))))
		}},
		{"wasmstream-wat", func(b *testing.B) {
			runPerRecord(b, recs, processBatches(wasmstreamInstance(b, b1.Backend(b), watGuest(b))))
		}},
	}
	if os.Getenv("EXTISM_FIRST") == "wasmstream" {
		slices.Reverse(cases)
	}
	for _, c := range cases {
		b.Run(c.name, c.run)
	}
}

// runPerRecord is b1.Run plus the ns/record metric.
func runPerRecord(b *testing.B, recs []host.Record, process b1.Processor) {
	b1.Run(b, recs, process)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/record")
}

// goGuest is the wasmstream Go guest of BenchmarkB1 (wasm-go).
func goGuest(tb testing.TB) []byte {
	tb.Helper()
	wasm, err := os.ReadFile(testutil.GoGuestIn(tb, repoRoot(tb), "./internal/testguests/bench"))
	if err != nil {
		tb.Fatal(err)
	}
	return wasm
}

// watGuest is the WAT counter of BenchmarkB1WAT.
func watGuest(tb testing.TB) []byte {
	tb.Helper()
	wasm, err := os.ReadFile(filepath.Join(repoRoot(tb), "host", "testdata", "hostile.wasm"))
	if err != nil {
		tb.Fatal(err)
	}
	return wasm
}

// wasmstreamInstance compiles and instantiates wasm as the B1 harness does
// (BenchmarkB1, BenchmarkB1WAT): a host runtime with its defaults, one
// output "out", the given backend.
func wasmstreamInstance(tb testing.TB, backend *state.Backend, wasm []byte) *host.Instance {
	tb.Helper()
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.RuntimeConfig{CacheDir: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = rt.Close(ctx) })
	mod, err := rt.Compile(ctx, "b1", wasm)
	if err != nil {
		tb.Fatal(err)
	}
	inst, err := mod.Instantiate(ctx, host.InstanceConfig{Operator: "b1", Outputs: []string{"out"}}, backend)
	if err != nil {
		tb.Fatal(err)
	}
	return inst
}

func processBatches(inst *host.Instance) b1.Processor {
	return func(batch []host.Record) (int, error) {
		outs, err := inst.Process(context.Background(), batch)
		return len(outs), err
	}
}
