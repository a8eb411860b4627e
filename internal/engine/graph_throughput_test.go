package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

const passthroughPkg = "./internal/bench/guests/passthrough"

// throughputHCL is a pipeline that sums the records of source "a" per key (sum2, 2 tasks) into
// sink "out": in one stage, or in two, where a pass-through operator (2 tasks) reads the source
// first and hands every record on to the sum through an exchange stream. The two-stage one does
// the one-stage one's work plus a guest call per record and the exchange hop.
func throughputHCL(dataDir string, port int, sum, pass string, stages int) string {
	head := fmt.Sprintf(`
name     = "tput"
data_dir = %q
server { embedded_port = %d }
stream "SUMA" { subjects = ["suma.>"] }
stream "TPUT" { subjects = ["tput.>"] }
source "a" {
  stream  = "SUMA"
  subject = %q
}
sink "out" { subject = "tput.out" }
`, dataDir, port, sumSubjectA)
	if stages == 1 {
		return head + fmt.Sprintf(`
operator "sum" {
  module      = %q
  inputs      = ["a"]
  parallelism = 2
  key { json_field = "k" }
  outputs = { out = "out" }
}
`, sum)
	}
	return head + fmt.Sprintf(`
operator "pass" {
  module           = %q
  inputs           = ["a"]
  parallelism      = 2
  key { json_field = "k" }
  internal_outputs = ["out"]
}
operator "sum" {
  module      = %q
  inputs      = ["pass.out"]
  parallelism = 2
  key { json_field = "k" }
  outputs = { out = "out" }
}
`, pass, sum)
}

// BenchmarkGraphTwoStagesAgainstOne measures records/s through one stage (sum) and through two
// (pass-through, exchange, sum), the two-stage one with the local-edge shortcut (the default in
// one process: the sum takes the records the sink stored from memory) and without it
// ("stages=2-stream": the sum reads them back from the exchange stream). Each iteration
// publishes WASMSTREAM_BENCH_RECORDS records (default 100,000) to a fresh pipeline first, then
// times the run from its start until the sum has processed every record.
// scripts/bench-graph-throughput.sh runs the three side by side, in rotating order, and prints
// the ratios.
func BenchmarkGraphTwoStagesAgainstOne(b *testing.B) {
	records := 100_000
	if s := os.Getenv("WASMSTREAM_BENCH_RECORDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("WASMSTREAM_BENCH_RECORDS=%q: want a number of records", s)
		}
		records = n
	}
	sum, pass := testutil.GoGuest(b, sum2Pkg), testutil.GoGuest(b, passthroughPkg)
	recs := chainRecords(records, 1000, 1)
	for _, tc := range []struct {
		name   string
		stages int
		stream bool
	}{{"stages=1", 1, false}, {"stages=2", 2, false}, {"stages=2-stream", 2, true}} {
		b.Run(tc.name, func(b *testing.B) {
			var elapsed time.Duration
			for range b.N {
				elapsed += runThroughput(b, sum, pass, tc.stages, tc.stream, recs)
			}
			b.ReportMetric(float64(len(recs)*b.N)/elapsed.Seconds(), "records/s")
		})
	}
}

// runThroughput runs a fresh pipeline of stages over recs, published before it starts, and
// returns the time from its start until the sum has processed them all; stream: without the
// local-edge shortcut.
func runThroughput(b *testing.B, sum, pass string, stages int, stream bool, recs []sumRecord) time.Duration {
	b.Helper()
	b.StopTimer()
	defer b.StartTimer()
	dataDir := testutil.PrivateTempDir(b)
	path := filepath.Join(b.TempDir(), "pipeline.hcl")
	if err := os.WriteFile(path, []byte(throughputHCL(dataDir, testutil.FreePort(b), sum, pass, stages)), 0o644); err != nil {
		b.Fatal(err)
	}
	cfg, _, err := config.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	p, err := Open(ctx, cfg, Options{Logger: hclog.NewNullLogger(), StopWhenIdle: -1, Checkpoint: CheckpointOptions{Interval: -1}, NoExchangeShortcut: stream})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	if err := sendSums(p.Reach(), recs, 0); err != nil {
		b.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	start := time.Now()
	go func() { ran <- p.Run(runCtx) }()
	want := uint64(stages * len(recs))
	for p.Stats().Processed < want {
		time.Sleep(2 * time.Millisecond)
	}
	elapsed := time.Since(start)
	stop()
	if err := <-ran; err != nil {
		b.Fatal(err)
	}
	return elapsed
}
