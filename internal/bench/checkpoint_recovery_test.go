package bench

import (
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// BenchmarkCheckpointRecovery measures a restart against the size of the
// state: the B1 guest loads CK_KEYS distinct keys (default 1000), the run
// stops with its final checkpoint, and the pipeline is opened again.
// "open-ns" is engine.Open restoring that checkpoint (list, verify every
// file's checksum, copy the state, start the embedded server, compile from
// the cache, start the tasks, position the sources); "open-empty-ns" is
// engine.Open of the same data dir with EmptyState, measured just before,
// which does all of that except verify and copy; "recovery-ns" is
// Metrics.Recovery.DurationNanos as written in the next checkpoint. The
// files are in the page cache (the state was just written): a restart
// after a reboot reads them from disk.
func BenchmarkCheckpointRecovery(b *testing.B) {
	wasm := testutil.GoGuest(b, "./internal/testguests/bench")
	for _, keys := range envInts(b, "CK_KEYS", 1000) {
		b.Run("keys="+strconv.Itoa(keys), func(b *testing.B) {
			var sum metricSum
			for i := 0; i < b.N; i++ {
				recoveryOnce(b, wasm, keys, &sum)
			}
			sum.report(b, b.N)
		})
	}
}

func recoveryOnce(b *testing.B, wasm string, keys int, sum *metricSum) {
	cfg := ckConfig(b, filepath.Join(b.TempDir(), "data"), wasm, 1, 1)
	loadAndStop(b, cfg, keys)
	id := newestCheckpoint(b, cfg)
	restored := readManifest(b, cfg, id)
	if got := restored.Sources[0].LastSequence; got != uint64(keys) {
		b.Fatalf("checkpoint %d holds source position %d, want %d", id, got, keys)
	}
	sum.add("ckpt-bytes", float64(restored.Metrics.BytesTotal))
	sum.add("ckpt-files", float64(len(restored.Files)))

	start := time.Now()
	p := ckOpen(b, cfg, onDemand, engine.RecoveryOptions{EmptyState: true})
	sum.add("open-empty-ns", float64(time.Since(start)))
	p.Close()

	start = time.Now()
	p = ckOpen(b, cfg, onDemand, noRecovery)
	sum.add("open-ns", float64(time.Since(start)))
	defer p.Close()
	run := startRun(p)
	next := trigger(b, p, cfg)
	run.finish(b)
	if r := next.Metrics.Recovery; r == nil || r.FromCheckpoint != id {
		b.Fatalf("checkpoint %d after the restore reports recovery %+v, want from checkpoint %d", next.ID, r, id)
	}
	sum.add("recovery-ns", float64(next.Metrics.Recovery.DurationNanos))
}

// loadAndStop runs cfg over one record per key and stops it; the stop
// writes the final checkpoint.
func loadAndStop(b *testing.B, cfg *config.Pipeline, keys int) {
	p := ckOpen(b, cfg, onDemand, noRecovery)
	defer p.Close()
	publishKeyed(b, p, "in0", keys, keyName, constValue)
	run := startRun(p)
	run.waitProcessed(b, uint64(keys))
	run.finish(b)
}
