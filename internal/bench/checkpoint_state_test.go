package bench

import (
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// BenchmarkCheckpointState measures one checkpoint against the size of the
// state: the B1 guest (a counter per key) loads CK_KEYS distinct keys
// (comma-separated sizes, default 1000) from one record per key through
// the embedded JetStream; then an on-demand checkpoint is taken ("full":
// every key is dirty), 1% of the keys are updated and a second one is taken
// ("incr"), and again with another 1% ("incr2": by then the first
// checkpoint's data has left the WAL for table files, which later
// checkpoints share). Reported per checkpoint: duration from trigger to completion,
// the longest task pause (its state flush), and the checkpoint's bytes,
// total and new (not in the previous checkpoint). ns/op is the whole
// iteration, loading included: read the custom metrics.
func BenchmarkCheckpointState(b *testing.B) {
	wasm := testutil.GoGuest(b, "./internal/testguests/bench")
	for _, keys := range envInts(b, "CK_KEYS", 1000) {
		b.Run("keys="+strconv.Itoa(keys), func(b *testing.B) {
			var sum metricSum
			for i := 0; i < b.N; i++ {
				checkpointStateOnce(b, wasm, keys, &sum)
			}
			sum.report(b, b.N)
		})
	}
}

func checkpointStateOnce(b *testing.B, wasm string, keys int, sum *metricSum) {
	cfg := ckConfig(b, filepath.Join(b.TempDir(), "data"), wasm, 1, 1)
	p := ckOpen(b, cfg, onDemand, noRecovery)
	defer p.Close()
	publishKeyed(b, p, "in0", keys, keyName, constValue)
	start := time.Now()
	run := startRun(p)
	run.waitProcessed(b, uint64(keys))
	sum.add("load-records/s", float64(keys)/time.Since(start).Seconds())
	addCheckpoint(sum, "full", trigger(b, p, cfg), 1)

	updates, done := max(keys/100, 1), keys
	for round, name := range []string{"incr", "incr2"} {
		publishKeyed(b, p, "in0", updates, func(i int) string { return keyName((i*100 + round) % keys) }, constValue)
		done += updates
		run.waitProcessed(b, uint64(done))
		addCheckpoint(sum, name, trigger(b, p, cfg), 1)
	}
	run.finish(b)
}

// addCheckpoint adds a checkpoint's measurements under prefix, each
// multiplied by weight (1/n when the mean of n checkpoints is reported).
func addCheckpoint(sum *metricSum, prefix string, m checkpoint.Manifest, weight float64) {
	sum.add(prefix+"-ns", weight*float64(m.Metrics.DurationNanos))
	sum.add(prefix+"-pause-ns", weight*float64(m.Metrics.MaxPauseNanos))
	sum.add(prefix+"-bytes", weight*float64(m.Metrics.BytesTotal))
	sum.add(prefix+"-bytes-new", weight*float64(m.Metrics.BytesNew))
}
