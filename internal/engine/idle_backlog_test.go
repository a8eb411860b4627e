package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/internal/testutil/natsproc"
	"github.com/wasmstream/wasmstream/natsio"
)

// Issue 18 end to end: short runs with --stop-when-idle over a large
// backlog, on a server in its own process (where the source stall was
// most frequent). Before the fix a run whose source stalled for 10 s
// stopped "idle" after 2 s with part of its input unread and no error.
const (
	idleRuns    = 6
	idleRecords = 200_000
)

func TestStopWhenIdleReadsWholeBacklog(t *testing.T) {
	if testing.Short() {
		t.Skip("a load test of about a minute; it runs without -short")
	}
	url := natsproc.Start(t)
	publishKeyedBacklog(t, url, idleRecords)
	wasm := testutil.GoGuest(t, "./internal/testguests/bench")
	for run := range idleRuns {
		cfg := backlogPipeline(t, url, wasm)
		seedCompilationCache(t, cfg.DataDir, wasm)
		stats, err := runToIdle(t, cfg)
		if err != nil || stats.Read != idleRecords {
			t.Errorf("run %d: read %d of %d records, err %v; want all, no error", run, stats.Read, idleRecords, err)
		}
	}
}

// runToIdle runs cfg from empty state until it stops as idle.
func runToIdle(t *testing.T, cfg *config.Pipeline) (Stats, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a bound, not a figure
	defer cancel()
	p, err := Open(ctx, cfg, Options{Logger: testLogger(t), StopWhenIdle: 2 * time.Second, Checkpoint: CheckpointOptions{Interval: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	err = p.Run(ctx)
	return p.Stats(), err
}

// publishKeyedBacklog stores n 100-byte records on subject "in" of stream
// IN, keys in header Key over 100,000 values.
func publishKeyedBacklog(t *testing.T, url string, n int) {
	t.Helper()
	ctx := context.Background()
	c, err := natsio.Connect(ctx, natsio.ServerOptions{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.EnsureStream(ctx, natsio.StreamSpec{Name: "IN", Subjects: []string{"in"}}); err != nil {
		t.Fatal(err)
	}
	sink := c.NewSink(8192)
	defer sink.Close()
	value := make([]byte, 100)
	for i := range n {
		h := map[string][]string{"Key": {"key-" + strconv.Itoa(i%100_000)}}
		if err := sink.Publish(ctx, natsio.OutMessage{Subject: "in", Data: value, Header: h}); err != nil {
			t.Fatal(err)
		}
	}
	if err := sink.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// backlogPipeline reads stream IN at url into subject out with the bench
// guest, from a fresh data dir.
func backlogPipeline(t *testing.T, url, wasm string) *config.Pipeline {
	t.Helper()
	dir := testutil.PrivateTempDir(t)
	src := fmt.Sprintf(`
name     = "backlog"
data_dir = %q
server { url = %q }
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
`, filepath.Join(dir, "data"), url, wasm)
	path := filepath.Join(dir, "pipeline.hcl")
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
