package host

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// Start-up of an operator from a warm compilation cache, as the engine
// does it for one operator with one task (compileOperator, then
// probeDeclarations, then startTasks): a runtime, Compile (structure
// check, wazero's compile or cache load, validation with its ABI-version
// instance), CheckInit (one instance through ws_init), the task's
// instance and its first batch. The same `counter` reference operator in
// Go and in Rust. scripts/bench-startup.sh runs it in alternated rounds
// and prints medians.
//
// Cases:
//   - disk-cache: the process has compiled nothing yet, the cache
//     directory holds the native code (a new process's first start);
//   - restart: the process started the operator before (a cluster worker
//     restarting its tasks at a new assignment, an upgrade reopening the
//     pipeline).
func BenchmarkStartup(b *testing.B) {
	for _, lang := range []string{"go", "rust"} {
		b.Run(lang, func(b *testing.B) {
			wasm := startupModule(b, lang)
			dir := startupCacheDir(b)
			startOperator(b, dir, wasm) // fills the disk cache
			b.Run("disk-cache", func(b *testing.B) { benchStart(b, dir, wasm, true) })
			b.Run("restart", func(b *testing.B) { benchStart(b, dir, wasm, false) })
		})
	}
}

// startupCacheDir is the compilation cache directory of the start-up
// benchmarks: $WASMSTREAM_STARTUP_CACHE when set (scripts/bench-startup.sh
// shares one between its processes, so that only the first compiles),
// else a new one.
func startupCacheDir(b *testing.B) string {
	if dir := os.Getenv("WASMSTREAM_STARTUP_CACHE"); dir != "" {
		return dir
	}
	return filepath.Join(b.TempDir(), "wazero")
}

// startupModule is the counter reference operator in lang: Go is built
// here, Rust comes from scripts/build-rust.sh.
func startupModule(b *testing.B, lang string) []byte {
	if lang == "go" {
		return testutil.GoGuestBytes(b, "./conformance/operators/go/counter")
	}
	path := filepath.Join(testutil.ModuleRoot(b), "conformance", "build", lang, "counter.wasm")
	wasm, err := os.ReadFile(path)
	if err != nil {
		b.Skipf("%s not built: run scripts/build-%s.sh (%v)", path, lang, err)
	}
	return wasm
}

// startPhases are the durations of one start, summed over iterations.
type startPhases struct {
	runtime, compile, probe, instance, firstCall time.Duration
}

func benchStart(b *testing.B, dir string, wasm []byte, dropShared bool) {
	var sum startPhases
	for i := 0; i < b.N; i++ {
		if dropShared {
			b.StopTimer()
			closeIdleShared(context.Background())
			b.StartTimer()
		}
		p := startOperator(b, dir, wasm)
		sum.runtime += p.runtime
		sum.compile += p.compile
		sum.probe += p.probe
		sum.instance += p.instance
		sum.firstCall += p.firstCall
	}
	perOp := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(perOp(sum.runtime), "runtime-ms")
	b.ReportMetric(perOp(sum.compile), "compile-ms")
	b.ReportMetric(perOp(sum.probe), "probe-ms")
	b.ReportMetric(perOp(sum.instance), "instance-ms")
	b.ReportMetric(perOp(sum.firstCall), "first-call-ms")
}

// startOperator starts one operator with one task, times each phase and
// closes everything again.
func startOperator(b *testing.B, dir string, wasm []byte) startPhases {
	ctx := context.Background()
	var p startPhases
	t0 := time.Now()
	rt, err := NewRuntime(ctx, RuntimeConfig{CacheDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(ctx)
	t1 := time.Now()
	m, err := rt.Compile(ctx, "counter", wasm)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close(ctx)
	t2 := time.Now()
	cfg := InstanceConfig{Operator: "counter", Outputs: []string{"out"}}
	if _, err := m.CheckInit(ctx, cfg); err != nil {
		b.Fatal(err)
	}
	t3 := time.Now()
	inst, err := m.Instantiate(ctx, cfg, newMemState())
	if err != nil {
		b.Fatal(err)
	}
	defer inst.Close(ctx)
	t4 := time.Now()
	if _, err := inst.Process(ctx, []Record{startupRecord}); err != nil {
		b.Fatal(err)
	}
	t5 := time.Now()
	p.runtime, p.compile, p.probe, p.instance, p.firstCall = t1.Sub(t0), t2.Sub(t1), t3.Sub(t2), t4.Sub(t3), t5.Sub(t4)
	return p
}

var startupRecord = Record{Key: []byte("acct-1"), Value: []byte(`{"account":"acct-1","event":"e-1","cents":100}`)}
