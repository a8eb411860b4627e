package engine

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/natsio"
)

// BenchmarkMetricsOverhead measures end-to-end records/s of the pipeline
// of internal/bench's checkpoint benchmarks (the B1 guest: one counter per
// key and one output per record, one task keyed by a header; b.N records
// of 100 bytes over 10000 keys published beforehand; the clock runs from
// the start of Run until Run returned after its final checkpoint,
// checkpoints every second) without the metrics endpoint
// ("off") and with it, scraped every 250 ms ("on": much more often than a
// Prometheus server would, so that the scrapes' own cost shows). Both run
// in one invocation; METRICS_FIRST=on runs "on" first, which
// scripts/bench-metrics.sh alternates so that a drift of the machine's
// load does not always favour the same mode.
func BenchmarkMetricsOverhead(b *testing.B) {
	wasm := testutil.GoGuest(b, "./internal/testguests/bench")
	modes := []string{"off", "on"}
	if os.Getenv("METRICS_FIRST") == "on" {
		modes = []string{"on", "off"}
	}
	for _, mode := range modes {
		b.Run(mode, func(b *testing.B) { metricsOverheadOnce(b, wasm, mode == "on") })
	}
}

func metricsOverheadOnce(b *testing.B, wasm string, observed bool) {
	cfg := benchConfig(b, wasm, observed)
	var obs *Observer
	if observed {
		var err error
		if obs, err = StartObserver(cfg, nil); err != nil {
			b.Fatal(err)
		}
		defer obs.Close()
	}
	ctx := context.Background()
	p, err := Open(ctx, cfg, Options{Logger: hclog.NewNullLogger(), Observer: obs, Checkpoint: CheckpointOptions{Interval: time.Second}})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	publishKeyedRecords(b, p, b.N)
	stopScraping := scrapeEvery(obs, 250*time.Millisecond)
	b.ResetTimer()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Run(runCtx) }()
	for p.Stats().Processed < uint64(b.N) {
		time.Sleep(2 * time.Millisecond)
	}
	stop()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	stopScraping()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// scrapeEvery reads obs's /metrics every period until the returned stop
// is called; no-op on a nil obs.
func scrapeEvery(obs *Observer, period time.Duration) (stop func()) {
	if obs == nil {
		return func() {}
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				if resp, err := http.Get(obs.URL() + "/metrics"); err == nil {
					_, _ = resp.Body.Read(make([]byte, 1<<16))
					resp.Body.Close()
				}
			}
		}
	}()
	return func() { close(quit); <-done }
}

// publishKeyedRecords publishes n records of 100 bytes to "in", each
// with a "Key" header of one of 10000 keys.
func publishKeyedRecords(b *testing.B, p *Pipeline, n int) {
	b.Helper()
	ctx := context.Background()
	c, err := natsio.Connect(ctx, p.Reach())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	sink := c.NewSink(8192)
	defer sink.Close()
	value := []byte(strings.Repeat("x", 100))
	for i := range n {
		h := nats.Header{"Key": {fmt.Sprintf("key-%07d", i%10000)}}
		if err := sink.Publish(ctx, natsio.OutMessage{Subject: "in", Data: value, Header: h}); err != nil {
			b.Fatal(err)
		}
	}
	if err := sink.Flush(ctx); err != nil {
		b.Fatal(err)
	}
}

// benchConfig is the pipeline of internal/bench's checkpoint benchmarks,
// with the endpoint on a free loopback port when observed.
func benchConfig(b *testing.B, wasm string, observed bool) *config.Pipeline {
	b.Helper()
	observe := ""
	if observed {
		observe = "observe { listen = \"127.0.0.1:0\" }\n"
	}
	src := fmt.Sprintf(`name     = "bench"
data_dir = %q
%sserver { embedded_port = %d }
stream "IN" { subjects = ["in"] }
stream "OUT" { subjects = ["out"] }
source "in" { stream = "IN" }
operator "op" {
  module  = %q
  inputs  = ["in"]
  key { header = "Key" }
  outputs = { out = "out" }
}
sink "out" { subject = "out" }
`, testutil.PrivateTempDir(b), observe, testutil.FreePort(b), wasm)
	path := filepath.Join(b.TempDir(), "pipeline.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	cfg, diags, err := config.Load(path)
	if err != nil || len(diags) > 0 {
		b.Fatalf("bench pipeline: %v %v", err, diags)
	}
	return cfg
}

// BenchmarkTaskMetricsPerBatch is the hot-path cost of the metrics: what a
// task adds to each guest batch when the pipeline has an Observer (the
// span clocks, the histogram observation and the copy of the state cache's
// counters). Divide by the batch size (limits.batch_size, default 512) for
// the cost per record.
func BenchmarkTaskMetricsPerBatch(b *testing.B) {
	store, err := state.Open(b.TempDir(), state.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	backend, err := store.Backend(state.BackendOptions{Operator: "op", Range: state.RangeForTask(0, 1, state.DefaultMaxParallelism)})
	if err != nil {
		b.Fatal(err)
	}
	defer backend.Close()
	hist := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "x_seconds", Buckets: batchBuckets}, []string{"task"})
	t := &task{backend: backend, metrics: &taskMetrics{batch: hist.WithLabelValues("0")}}
	for b.Loop() {
		began := t.metrics.start()
		called := t.metrics.start()
		t.metrics.guestDone(called)
		t.batchDone(began)
	}
}
