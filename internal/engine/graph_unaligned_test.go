package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/exchange"
	"github.com/wasmstream/wasmstream/internal/protocol"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/natsio"
)

const slow2Pkg = "./internal/testguests/slow2"

// backlogSetup is a graph whose second stage lags on its exchange input: "e" (echo) passes
// each record of source "in" on twice (a note, then the value), and "lag" (slow2) reads
// source "fast" as input 0 and e's output as input 1, where every record burns the number of
// loop iterations its value gives: the exchange stream fills much faster than lag reads it.
type backlogSetup struct {
	dataDir      string
	port         int
	echo, slow   string
	records      int
	burnPerValue int
}

// newBacklogSetup builds the guests and loads the pipeline of records records, each asking the
// lagging stage for burn iterations.
func newBacklogSetup(t testing.TB, records, burn int) (backlogSetup, *config.Pipeline) {
	t.Helper()
	s := backlogSetup{dataDir: testutil.PrivateTempDir(t), port: testutil.FreePort(t), echo: testutil.GoGuest(t, echoPkg),
		slow: testutil.GoGuest(t, slow2Pkg), records: records, burnPerValue: burn}
	if tt, ok := t.(*testing.T); ok {
		seedCompilationCache(tt, s.dataDir, s.echo)
		seedCompilationCache(tt, s.dataDir, s.slow)
	}
	path := filepath.Join(t.TempDir(), "pipeline.hcl")
	if err := os.WriteFile(path, []byte(backlogHCL(s)), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return s, cfg
}

func backlogHCL(s backlogSetup) string {
	return fmt.Sprintf(`
name     = "lagging"
data_dir = %q
server { embedded_port = %d }
stream "LAGIN" { subjects = ["lagin.>"] }
stream "LAGOUT" { subjects = ["lagout.>"] }
source "in" {
  stream  = "LAGIN"
  subject = "lagin.*"
}
source "fast" {
  stream  = "LAGIN"
  subject = "lagin.fast.*"
}
operator "e" {
  module           = %q
  inputs           = ["in"]
  key { subject_token = 2 }
  internal_outputs = ["out"]
}
operator "lag" {
  module      = %q
  inputs      = ["fast", "e.out"]
  parallelism = 2
  key { subject_token = 3 }
  input "e.out" {
    key { header = "Wasmstream-Key" }
  }
  outputs = { out = "lagged" }
}
sink "lagged" { subject = "lagout.x" }
`, s.dataDir, s.port, s.echo, s.slow)
}

// The cut of an unaligned checkpoint on an exchange input does not wait for the consumer to
// read its backlog up to the producers' markers: the consumer snapshots where it is, and the
// records after that stay in the stream (read again on restore), not in the checkpoint. An
// aligned checkpoint of the same run cuts at the first marker, behind the whole backlog.
// Positions, not times, show it: the marker of the checkpoint lies after every record
// published before the trigger.
func TestGraphUnalignedCutDoesNotWaitForTheBacklog(t *testing.T) {
	skipInRacePass(t)
	for _, mode := range []protocol.Mode{protocol.Unaligned, protocol.Aligned} {
		t.Run(mode.String(), func(t *testing.T) {
			s, cfg := newBacklogSetup(t, 1500, 100000)
			cut, backlog := cutOverBacklog(t, cfg, s, mode)
			t.Logf("%s: the consumer's tasks cut the exchange at %d with %d messages in it at the trigger", mode, cut, backlog)
			switch {
			case mode == protocol.Unaligned && cut >= backlog:
				t.Errorf("unaligned checkpoint cut the exchange at %d of %d: it waited for the backlog", cut, backlog)
			case mode == protocol.Aligned && cut < backlog:
				t.Errorf("aligned checkpoint cut the exchange at %d, before the %d messages published before its trigger: not at its marker", cut, backlog)
			}
		})
	}
}

// cutOverBacklog runs s, fills the exchange with every record's outputs, triggers a checkpoint
// and returns the highest position at which a task of "lag" cut the exchange input, and the
// exchange stream's last sequence when the checkpoint was triggered.
func cutOverBacklog(t *testing.T, cfg *config.Pipeline, s backlogSetup, mode protocol.Mode) (cut, backlog uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	opts := Options{StopWhenIdle: -1, Checkpoint: CheckpointOptions{Interval: -1, Mode: mode, ModeSet: true}}
	p, err := Open(ctx, cfg, quietOptions(t, opts))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- p.Run(runCtx) }()
	publishBurns(t, p.Reach(), s)
	stream := exchange.Edge{Pipeline: cfg.Name, Producer: "e", Output: "out", Consumer: "lag"}.StreamName()
	waitUntil(t, "e to publish every output to the exchange", func() bool { return lastSequence(t, p, stream) >= uint64(2*s.records) })
	backlog = lastSequence(t, p, stream)
	r, err := p.Trigger(ctx)
	if err != nil || r.Error != "" {
		t.Fatalf("trigger: %v %s", err, r.Error)
	}
	stop()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	m, err := checkpoint.Read(CheckpointRoot(cfg), r.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range m.Operators {
		if op.Name != "lag" {
			continue
		}
		for _, task := range op.Tasks {
			cut = max(cut, task.Inputs["e.out"])
		}
	}
	return cut, backlog
}

// publishBurns publishes s.records records of source "in", each asking for s.burnPerValue
// iterations, over 8 keys.
func publishBurns(t testing.TB, reach natsio.ServerOptions, s backlogSetup) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := natsio.Connect(ctx, reach)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sink := c.NewSink(0)
	defer sink.Close()
	value := []byte(strconv.Itoa(s.burnPerValue))
	for i := range s.records {
		if err := sink.Publish(ctx, natsio.OutMessage{Subject: fmt.Sprintf("lagin.k%d", i%8), Data: value}); err != nil {
			t.Fatal(err)
		}
	}
	if err := sink.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// lastSequence is the last sequence of stream, read on the pipeline's own connection.
func lastSequence(t testing.TB, p *Pipeline, stream string) uint64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := p.conn.JS.Stream(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return info.State.LastSeq
}

// BenchmarkGraphUnalignedCheckpointOverBacklog measures an unaligned checkpoint of a graph
// whose two-input stage lags on its exchange input by 10k, 100k and 1M messages
// (WASMSTREAM_BENCH_BACKLOGS, comma-separated, chooses others): from the trigger to the
// checkpoint's completion. unread_messages is what the exchange still held after the cut at the
// end: the checkpoint did not read it. scripts/bench-graph-backlog.sh runs it.
func BenchmarkGraphUnalignedCheckpointOverBacklog(b *testing.B) {
	for _, backlog := range benchBacklogs(b) {
		b.Run(fmt.Sprintf("backlog=%d", backlog), func(b *testing.B) {
			s, cfg := newBacklogSetup(b, backlog/2, 100_000)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
			defer cancel()
			opts := Options{Logger: hclog.NewNullLogger(), StopWhenIdle: -1, Checkpoint: CheckpointOptions{Interval: -1, Mode: protocol.Unaligned, ModeSet: true}}
			p, err := Open(ctx, cfg, opts)
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			ran := make(chan error, 1)
			go func() { ran <- p.Run(ctx) }()
			publishBurns(b, p.Reach(), s)
			stream := exchange.Edge{Pipeline: cfg.Name, Producer: "e", Output: "out", Consumer: "lag"}.StreamName()
			for lastSequence(b, p, stream) < uint64(backlog) {
				time.Sleep(100 * time.Millisecond)
			}
			b.ResetTimer()
			start := time.Now()
			var last TriggerResult
			for range b.N {
				if last, err = p.Trigger(ctx); err != nil || last.Error != "" {
					b.Fatalf("trigger: %v %s", err, last.Error)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/checkpoint")
			m, err := checkpoint.Read(CheckpointRoot(cfg), last.ID)
			if err != nil {
				b.Fatal(err)
			}
			var cut uint64
			for _, op := range m.Operators {
				for _, task := range op.Tasks {
					cut = max(cut, task.Inputs["e.out"])
				}
			}
			b.ReportMetric(float64(lastSequence(b, p, stream)-cut), "unread_messages")
			// A graceful stop would drain the backlog for its final checkpoint: stop as a
			// crash does instead.
			p.fail(errBenchmarkDone)
			if err := <-ran; !errors.Is(err, errBenchmarkDone) {
				b.Fatalf("run: %v, want the benchmark's stop", err)
			}
		})
	}
}

var errBenchmarkDone = errors.New("benchmark done")

// benchBacklogs are the backlogs BenchmarkGraphUnalignedCheckpointOverBacklog measures.
func benchBacklogs(b *testing.B) []int {
	env := os.Getenv("WASMSTREAM_BENCH_BACKLOGS")
	if env == "" {
		return []int{10_000, 100_000, 1_000_000}
	}
	var out []int
	for _, f := range strings.Split(env, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 {
			b.Fatalf("WASMSTREAM_BENCH_BACKLOGS: %q is no backlog of at least 2 messages", f)
		}
		out = append(out, n)
	}
	return out
}
