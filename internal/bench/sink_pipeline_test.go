package bench

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
)

// The sink benchmarks run the pipeline of the checkpoint benchmarks (B1
// guest, one source, one task, sink "out" to stream OUT) once per sink
// mode. Their sizes come from environment variables with tiny defaults, so
// that the CI smoke (-benchtime 1x) stays fast; scripts/bench-sinks.sh sets
// the sizes recorded in BENCHMARKS.md.

// sinkModes are the sink delivery modes, in the order the benchmarks run them.
var sinkModes = []string{config.ModeAtLeastOnce, config.ModeIdempotent, config.ModeTransactional}

// sinkConfig is ckConfig's one-input, one-task pipeline whose sink "out"
// has the given mode. The mode is set on the loaded config rather than in
// the file so that the three modes run exactly the checkpoint benchmarks'
// pipeline; the engine reads it at Open (message ids, staging, and an OUT
// stream that allows atomic batches when the sink is transactional).
func sinkConfig(b *testing.B, wasm, mode string) *config.Pipeline {
	b.Helper()
	cfg := ckConfig(b, filepath.Join(b.TempDir(), "data"), wasm, 1, 1)
	if len(cfg.Sinks) != 1 {
		b.Fatalf("benchmark pipeline has %d sinks, want 1", len(cfg.Sinks))
	}
	cfg.Sinks[0].Mode = mode
	return cfg
}

// sinkCheckpoints is the checkpoint interval of the sink benchmarks,
// SINK_INTERVAL_MS (default 1000: transactional outputs wait for it).
// Retention keeps every manifest of a run for reportRunCheckpoints.
func sinkCheckpoints(b *testing.B) engine.CheckpointOptions {
	ms := envInt(b, "SINK_INTERVAL_MS", 1000)
	return engine.CheckpointOptions{Interval: time.Duration(ms) * time.Millisecond, Retain: 1000}
}

// connect opens a client connection to the pipeline's server.
func connect(b *testing.B, p *engine.Pipeline) *natsio.Conn {
	b.Helper()
	c, err := natsio.Connect(context.Background(), p.Reach())
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// storedCount is the number of messages stream holds.
func storedCount(b *testing.B, c *natsio.Conn, stream string) uint64 {
	b.Helper()
	ctx := context.Background()
	st, err := c.JS.Stream(ctx, stream)
	if err != nil {
		b.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		b.Fatal(err)
	}
	return info.State.Msgs
}

// waitStored waits until stream holds n messages; it fails the benchmark
// if Run ends first.
func (r *ckRun) waitStored(b *testing.B, c *natsio.Conn, stream string, n uint64) {
	b.Helper()
	for {
		have := storedCount(b, c, stream)
		if have >= n {
			return
		}
		select {
		case err := <-r.done:
			b.Fatalf("pipeline stopped with %d of %d messages in stream %s: %v", have, n, stream, err)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// expectOutputs fails the benchmark unless stream OUT holds exactly n
// outputs and, for a transactional sink, the pipeline published all n
// through checkpoints: a benchmark of a sink that lost or doubled outputs
// measures nothing.
func expectOutputs(b *testing.B, p *engine.Pipeline, mode string, n int) {
	b.Helper()
	c := connect(b, p)
	defer c.Close()
	if got := storedCount(b, c, "OUT"); got != uint64(n) {
		b.Fatalf("%s sink: stream OUT holds %d outputs, want %d", mode, got, n)
	}
	if got := p.Stats().TransactionalPublished; mode == config.ModeTransactional && got != uint64(n) {
		b.Fatalf("transactional sink published %d outputs after checkpoints, want %d", got, n)
	}
}
