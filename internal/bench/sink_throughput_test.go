package bench

import (
	"testing"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// BenchmarkSinkThroughput measures end-to-end records/s like
// BenchmarkCheckpointThroughput (b.N records published beforehand over
// SINK_KEYS distinct keys, default 100000; the clock runs from the start of
// Run until Run returned after its final checkpoint) with the sink in each
// mode, in the same invocation:
//   - "at_least_once": outputs published as produced, no message id;
//   - "idempotent": the same with a Nats-Msg-Id per output, which the
//     server checks against its duplicate window;
//   - "transactional": outputs staged in the checkpoints and published as
//     atomic batches after each completes.
//
// Every mode checkpoints every SINK_INTERVAL_MS (default 1000), since
// transactional outputs only leave through checkpoints. When Run returned,
// every output is stored: the final checkpoint waits for the
// acknowledgements of the published outputs and publishes the staged ones
// before Run returns; the benchmark then checks that OUT holds b.N outputs.
// Also reported: the checkpoints of the run (as in
// BenchmarkCheckpointThroughput).
func BenchmarkSinkThroughput(b *testing.B) {
	wasm := testutil.GoGuest(b, "./internal/testguests/bench")
	keys := envInt(b, "SINK_KEYS", 100_000)
	for _, mode := range sinkModes {
		b.Run(mode, func(b *testing.B) { sinkThroughputOnce(b, wasm, keys, mode) })
	}
}

func sinkThroughputOnce(b *testing.B, wasm string, keys int, mode string) {
	cfg := sinkConfig(b, wasm, mode)
	p := ckOpen(b, cfg, sinkCheckpoints(b), noRecovery)
	defer p.Close()
	publishKeyed(b, p, "in0", b.N, func(i int) string { return keyName(i % keys) }, constValue)
	b.ResetTimer()
	run := startRun(p)
	run.waitProcessed(b, uint64(b.N))
	run.finish(b)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
	reportRunCheckpoints(b, cfg)
	expectOutputs(b, p, mode, b.N)
}
