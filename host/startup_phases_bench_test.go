package host

import (
	"context"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/wasmstream/wasmstream/abi"
)

// startupPhases names the steps of a start, in order, that
// BenchmarkStartupPhases times one by one.
var startupPhases = []string{"hash", "structure", "wazero-compile", "abi-check", "instantiate", "initialize", "instance", "first-call"}

// BenchmarkStartupPhases splits what a process pays for its first start
// of an operator (BenchmarkStartup's disk-cache case) into its steps,
// with the compilation cache warm on disk and nothing compiled in memory:
//
//   - hash: the SHA-256 of the module (its version);
//   - structure: CheckStructure, the table bounds and the merge of the
//     data segments (prepareModule);
//   - wazero-compile: wazero's CompileModule: decode, validation of every
//     function body, then the native code read from the disk cache;
//   - abi-check: Compile's validation, with its one instance through
//     _initialize and ws_abi_version;
//   - instantiate: a wazero instance (memory, data segments), no code run;
//   - initialize: its _initialize (Go: the runtime and package inits);
//   - instance: Instantiate as a task does it (the three steps before
//     plus ws_init);
//   - first-call: its first batch of one record.
//
// The steps after wazero-compile are what every further instance costs;
// Compile pays hash and, once per process, the rest up to abi-check.
func BenchmarkStartupPhases(b *testing.B) {
	for _, lang := range []string{"go", "rust"} {
		b.Run(lang, func(b *testing.B) {
			wasm := startupModule(b, lang)
			dir := startupCacheDir(b)
			startOperator(b, dir, wasm) // fills the disk cache
			b.ResetTimer()
			sum := make([]time.Duration, len(startupPhases))
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				closeIdleShared(context.Background())
				b.StartTimer()
				for j, d := range timePhases(b, dir, wasm) {
					sum[j] += d
				}
			}
			for j, name := range startupPhases {
				b.ReportMetric(float64(sum[j].Microseconds())/1000/float64(b.N), name+"-ms")
			}
		})
	}
}

// timePhases runs the steps of startupPhases once each, in a runtime
// with nothing compiled in memory.
func timePhases(b *testing.B, dir string, wasm []byte) []time.Duration {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, RuntimeConfig{CacheDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(ctx)
	lap := phaseClock{last: time.Now()}
	_ = sha256.Sum256(wasm)
	lap.next()
	prepared, err := prepareModule(wasm, rt.cfg.ModuleLimits)
	if err != nil {
		b.Fatal(err)
	}
	lap.next()
	compiled, err := rt.rt.CompileModule(ctx, prepared)
	if err != nil {
		b.Fatal(err)
	}
	defer compiled.Close(ctx)
	lap.next()
	m := &Module{rt: rt, compiled: compiled, name: "counter"}
	if err := m.validate(ctx); err != nil {
		b.Fatal(err)
	}
	lap.next()
	timeRawInstance(b, rt, compiled, &lap)
	inst, err := m.Instantiate(ctx, InstanceConfig{Operator: "counter", Outputs: []string{"out"}}, newMemState())
	if err != nil {
		b.Fatal(err)
	}
	defer inst.Close(ctx)
	lap.next()
	if _, err := inst.Process(ctx, []Record{startupRecord}); err != nil {
		b.Fatal(err)
	}
	lap.next()
	return lap.laps
}

// timeRawInstance times a wazero instance of compiled and its
// _initialize, which Instantiate does before ws_init.
func timeRawInstance(b *testing.B, rt *Runtime, compiled wazero.CompiledModule, lap *phaseClock) {
	ctx := context.Background()
	g, err := rt.rt.InstantiateModule(ctx, compiled, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close(ctx)
	lap.next()
	if fn := g.ExportedFunction(abi.ExportWASIInitialize); fn != nil {
		if _, err := fn.Call(ctx); err != nil {
			b.Fatal(err)
		}
	}
	lap.next()
}

// phaseClock records the time since its previous lap.
type phaseClock struct {
	last time.Time
	laps []time.Duration
}

func (c *phaseClock) next() {
	now := time.Now()
	c.laps = append(c.laps, now.Sub(c.last))
	c.last = now
}
