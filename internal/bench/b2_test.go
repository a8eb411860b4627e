package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/natsio"
)

// b2Config is a one-operator pipeline running the B1 guest from stream IN
// (subject in) to subject out (stream OUT), on an embedded server.
func b2Config(b *testing.B, wasm string) *config.Pipeline {
	b.Helper()
	dir := b.TempDir()
	src := fmt.Sprintf(`
name     = "b2"
data_dir = %q
server { embedded_port = %d }
stream "IN"  { subjects = ["in"] }
stream "OUT" { subjects = ["out"] }
source "in" { stream = "IN" }
operator "count" {
  module  = %q
  inputs  = ["in"]
  key { header = "Key" }
  outputs = { out = "out" }
}
sink "out" { subject = "out" }
`, filepath.Join(dir, "data"), testutil.FreePort(b), wasm)
	path := filepath.Join(dir, "pipeline.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	cfg, _, err := config.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	return cfg
}

// publishInput stores n 100-byte records with keys over 100k distinct values.
func publishInput(b *testing.B, c *natsio.Conn, n int) {
	b.Helper()
	ctx := context.Background()
	sink := c.NewSink(8192)
	defer sink.Close()
	value := make([]byte, b1ValueLen)
	for i := range value {
		value[i] = 'x'
	}
	for i := 0; i < n; i++ {
		h := map[string][]string{"Key": {"key-" + strconv.Itoa(i%b1Keys)}}
		if err := sink.Publish(ctx, natsio.OutMessage{Subject: "in", Data: value, Header: h}); err != nil {
			b.Fatal(err)
		}
	}
	if err := sink.Flush(ctx); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkB2 measures end-to-end records/s through the embedded JetStream:
// records are published beforehand and the clock stops when every output is
// acknowledged. "wasmstream" is the pipeline with the B1 guest; "plain-go"
// is a consume->publish loop with the same nats.go source and sink.
func BenchmarkB2(b *testing.B) {
	wasm := testutil.GoGuest(b, "./internal/testguests/bench")
	b.Run("wasmstream", func(b *testing.B) { benchPipeline(b, wasm) })
	b.Run("plain-go", func(b *testing.B) { benchPlainLoop(b, wasm) })
}

func benchPipeline(b *testing.B, wasm string) {
	cfg := b2Config(b, wasm)
	ctx := context.Background()
	p, err := engine.Open(ctx, cfg, engine.Options{Logger: hclog.NewNullLogger(), Checkpoint: engine.CheckpointOptions{Interval: time.Hour}})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	c, err := natsio.Connect(ctx, p.Reach())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	publishInput(b, c, b.N)
	b.ResetTimer()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Run(runCtx) }()
	for p.Stats().Emitted < uint64(b.N) {
		time.Sleep(5 * time.Millisecond)
	}
	stop() // Run drains, waits for every acknowledgement and commits
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

func benchPlainLoop(b *testing.B, wasm string) {
	cfg := b2Config(b, wasm)
	ctx := context.Background()
	c, err := engine.ConnectClient(ctx, cfg, hclog.NewNullLogger(), engine.AsControl)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	publishInput(b, c, b.N)
	b.ResetTimer()
	src, err := c.OpenSource(ctx, natsio.SourceSpec{Stream: "IN", StartSequence: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	sink := c.NewSink(4096)
	defer sink.Close()
	for done := 0; done < b.N; {
		msgs, err := src.Fetch(ctx, 1024, time.Second)
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range msgs {
			id := "b2.plain.in." + strconv.FormatUint(m.Sequence, 10) + ".0"
			if err := sink.Publish(ctx, natsio.OutMessage{Subject: "out", MsgID: id, Data: m.Data}); err != nil {
				b.Fatal(err)
			}
		}
		done += len(msgs)
	}
	if err := sink.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
