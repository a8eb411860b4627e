package bench

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// BenchmarkCheckpointThroughput measures end-to-end records/s like B2 (b.N
// records published beforehand, the clock stops when Run returned after
// its final commit) with periodic checkpoints every second ("interval-1s")
// and with none but the final one at the stop ("none"), in the same
// invocation. Records cycle over CK_TPUT_KEYS distinct keys (default
// 100000), so every checkpoint flushes the keys updated since the last one
// and copies a state of that many keys. Also reported: the number of
// periodic checkpoints that completed, the median duration and the longest
// pause among them, and the duration of the final checkpoint. Retention is
// raised to keep every manifest of the run.
func BenchmarkCheckpointThroughput(b *testing.B) {
	wasm := testutil.GoGuest(b, "./internal/testguests/bench")
	keys := envInt(b, "CK_TPUT_KEYS", 100_000)
	b.Run("interval-1s", func(b *testing.B) { throughputOnce(b, wasm, keys, time.Second) })
	b.Run("none", func(b *testing.B) { throughputOnce(b, wasm, keys, -1) })
}

func throughputOnce(b *testing.B, wasm string, keys int, interval time.Duration) {
	cfg := ckConfig(b, filepath.Join(b.TempDir(), "data"), wasm, 1, 1)
	p := ckOpen(b, cfg, engine.CheckpointOptions{Interval: interval, Retain: 1000}, noRecovery)
	defer p.Close()
	publishKeyed(b, p, "in0", b.N, func(i int) string { return keyName(i % keys) }, constValue)
	b.ResetTimer()
	run := startRun(p)
	run.waitProcessed(b, uint64(b.N))
	run.finish(b)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
	reportRunCheckpoints(b, cfg)
}

// reportRunCheckpoints reports the periodic checkpoints of a run (every
// checkpoint but the newest, the final one) and the final one.
func reportRunCheckpoints(b *testing.B, cfg *config.Pipeline) {
	final := newestCheckpoint(b, cfg)
	var durations []float64
	var maxPause int64
	for id := uint64(1); id < final; id++ {
		m := readManifest(b, cfg, id)
		durations = append(durations, float64(m.Metrics.DurationNanos))
		maxPause = max(maxPause, m.Metrics.MaxPauseNanos)
	}
	b.ReportMetric(float64(final-1), "checkpoints")
	b.ReportMetric(median(durations), "ckpt-median-ns")
	b.ReportMetric(float64(maxPause), "ckpt-max-pause-ns")
	b.ReportMetric(float64(readManifest(b, cfg, final).Metrics.DurationNanos), "final-ckpt-ns")
}
