package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// BenchmarkTTLThroughput measures end-to-end records/s like
// BenchmarkCheckpointThroughput's "none" case (b.N records published
// beforehand over TTL_KEYS distinct keys, default 100000; the clock stops
// when Run returned after its final checkpoint) with the guest's state
// "count" under three TTL settings, in the same invocation:
//   - "none": no TTL, no sweep;
//   - "ttl-1h": processing-time TTL of an hour, so nothing expires during
//     the run: the cost of storing expiries, reading the clock and sweeping;
//   - "ttl-1s": a second, so entries of keys not seen for a second expire
//     and the sweep deletes them while the run goes on.
//
// Also reported: the expired entries and the sweep passes of the run.
func BenchmarkTTLThroughput(b *testing.B) {
	wasm := testutil.GoGuest(b, "./internal/testguests/bench")
	keys := envInt(b, "TTL_KEYS", 100_000)
	for _, tc := range []struct{ name, block string }{
		{"none", ""},
		{"ttl-1h", `state "count" { ttl = "1h" }`},
		{"ttl-1s", `state "count" { ttl = "1s" }`},
	} {
		b.Run(tc.name, func(b *testing.B) { ttlThroughputOnce(b, wasm, keys, tc.block) })
	}
}

func ttlThroughputOnce(b *testing.B, wasm string, keys int, stateBlock string) {
	cfg := ttlConfig(b, filepath.Join(b.TempDir(), "data"), wasm, stateBlock)
	p := ckOpen(b, cfg, engine.CheckpointOptions{Interval: -1}, noRecovery)
	defer p.Close()
	publishKeyed(b, p, "in0", b.N, func(i int) string { return keyName(i % keys) }, constValue)
	b.ResetTimer()
	run := startRun(p)
	run.waitProcessed(b, uint64(b.N))
	run.finish(b)
	b.StopTimer()
	st := p.Stats()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(st.StateExpired), "expired")
	b.ReportMetric(float64(st.SweepPasses), "sweep-passes")
}

// ttlConfig is ckConfig's one-input pipeline with stateBlock in its operator.
func ttlConfig(b *testing.B, dataDir, wasm, stateBlock string) *config.Pipeline {
	b.Helper()
	src := ckHCL(dataDir, testutil.FreePort(b), wasm, 1, 1)
	src = strings.Replace(src, `key { header = "Key" }`, `key { header = "Key" }`+"\n  "+stateBlock, 1)
	path := filepath.Join(b.TempDir(), "pipeline.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	cfg, _, err := config.Load(path)
	if err != nil {
		b.Fatal(fmt.Errorf("%w\n%s", err, src))
	}
	return cfg
}
