package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/natsio"
)

// The checkpoint benchmarks run whole pipelines on an embedded JetStream.
// Their sizes come from environment variables whose defaults are tiny, so
// that the CI smoke (-benchtime 1x) stays fast; scripts/bench-checkpoint.sh
// sets the sizes recorded in BENCHMARKS.md.

// envInts reads a comma-separated list of positive integers from name, or
// returns def when it is unset.
func envInts(b *testing.B, name string, def ...int) []int {
	b.Helper()
	raw := strings.TrimSpace(os.Getenv(name))
	if raw == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(raw, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			b.Fatalf("%s=%q: want positive integers separated by commas", name, raw)
		}
		out = append(out, n)
	}
	return out
}

// envInt reads one positive integer from name, or returns def.
func envInt(b *testing.B, name string, def int) int {
	b.Helper()
	return envInts(b, name, def)[0]
}

// ckConfig writes and loads a one-operator pipeline (see ckHCL). dataDir
// is given so that a benchmark can reopen the same pipeline to restore it.
func ckConfig(b *testing.B, dataDir, wasm string, inputs, parallelism int) *config.Pipeline {
	b.Helper()
	path := filepath.Join(b.TempDir(), "pipeline.hcl")
	src := ckHCL(dataDir, testutil.FreePort(b), wasm, inputs, parallelism)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	cfg, _, err := config.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	return cfg
}

// ckHCL is the pipeline of the checkpoint benchmarks: one source per input
// (source "inN" reads stream "INN", subject "inN"), the operator "op" with
// parallelism tasks keyed by the "Key" header, and its output "out" to
// stream OUT, on an embedded server at port.
func ckHCL(dataDir string, port int, wasm string, inputs, parallelism int) string {
	var src strings.Builder
	fmt.Fprintf(&src, "name = \"ck\"\ndata_dir = %q\nserver { embedded_port = %d }\n", dataDir, port)
	fmt.Fprintf(&src, "stream \"OUT\" { subjects = [\"out\"] }\nsink \"out\" { subject = \"out\" }\n")
	names := make([]string, inputs)
	for i := range names {
		names[i] = fmt.Sprintf("%q", inputSubject(i))
		fmt.Fprintf(&src, "stream \"IN%d\" { subjects = [%q] }\nsource %q { stream = \"IN%d\" }\n", i, inputSubject(i), inputSubject(i), i)
	}
	fmt.Fprintf(&src, "operator \"op\" {\n  module = %q\n  inputs = [%s]\n  parallelism = %d\n  key { header = \"Key\" }\n  outputs = { out = \"out\" }\n}\n",
		wasm, strings.Join(names, ", "), parallelism)
	return src.String()
}

// inputSubject is the subject (and source name) of operator input i.
func inputSubject(i int) string { return "in" + strconv.Itoa(i) }

// ckOpen opens cfg with the given checkpoint options and a silent logger,
// or the engine's log on stderr with millisecond times when CK_LOG is set
// (to see where the time of a figure goes; CK_LOG=debug includes the
// debug records, such as each publication of transactional outputs).
func ckOpen(b *testing.B, cfg *config.Pipeline, ck engine.CheckpointOptions, rec engine.RecoveryOptions) *engine.Pipeline {
	b.Helper()
	logger := hclog.NewNullLogger()
	if v := os.Getenv("CK_LOG"); v != "" {
		level := hclog.Info
		if v == "debug" {
			level = hclog.Debug
		}
		logger = hclog.New(&hclog.LoggerOptions{Output: os.Stderr, Level: level, TimeFormat: "15:04:05.000"})
	}
	p, err := engine.Open(context.Background(), cfg, engine.Options{Logger: logger, Checkpoint: ck, Recovery: rec})
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// onDemand takes checkpoints only when triggered and at the stop.
var onDemand = engine.CheckpointOptions{Interval: -1}

// noRecovery restores the newest checkpoint, if any: the default.
var noRecovery = engine.RecoveryOptions{}

// publishKeyed stores n records on subject through the pipeline's server:
// record i has header Key = key(i) and value value(i).
func publishKeyed(b *testing.B, p *engine.Pipeline, subject string, n int, key func(int) string, value func(int) []byte) {
	b.Helper()
	ctx := context.Background()
	c, err := natsio.Connect(ctx, p.Reach())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	sink := c.NewSink(8192)
	defer sink.Close()
	for i := 0; i < n; i++ {
		h := map[string][]string{"Key": {key(i)}}
		if err := sink.Publish(ctx, natsio.OutMessage{Subject: subject, Data: value(i), Header: h}); err != nil {
			b.Fatal(err)
		}
	}
	if err := sink.Flush(ctx); err != nil {
		b.Fatal(err)
	}
}

// keyName is the key of key index i: fixed width, like B1's keys.
func keyName(i int) string { return fmt.Sprintf("key-%07d", i) }

// value100 is a 100-byte record value, as in B1 and B2.
var value100 = func() []byte {
	v := make([]byte, b1ValueLen)
	for i := range v {
		v[i] = 'x'
	}
	return v
}()

func constValue(int) []byte { return value100 }

// ckRun is a pipeline's Run in a goroutine.
type ckRun struct {
	p    *engine.Pipeline
	stop context.CancelFunc
	done chan error
}

func startRun(p *engine.Pipeline) *ckRun {
	ctx, stop := context.WithCancel(context.Background())
	r := &ckRun{p: p, stop: stop, done: make(chan error, 1)}
	go func() { r.done <- p.Run(ctx) }()
	return r
}

// waitProcessed waits until the guests processed and emitted n records in
// total; it fails the benchmark if Run ends first.
func (r *ckRun) waitProcessed(b *testing.B, n uint64) {
	b.Helper()
	for {
		s := r.p.Stats()
		if s.Processed >= n && s.Emitted >= n {
			return
		}
		select {
		case err := <-r.done:
			b.Fatalf("pipeline stopped after %d of %d records: %v", s.Processed, n, err)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// finish stops the run (Run takes its final checkpoint) and waits for it.
func (r *ckRun) finish(b *testing.B) {
	b.Helper()
	r.stop()
	if err := <-r.done; err != nil {
		b.Fatal(err)
	}
}

// trigger takes an on-demand checkpoint and returns its manifest.
func trigger(b *testing.B, p *engine.Pipeline, cfg *config.Pipeline) checkpoint.Manifest {
	b.Helper()
	res, err := p.Trigger(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	if res.Error != "" {
		b.Fatalf("checkpoint failed: %s", res.Error)
	}
	return readManifest(b, cfg, res.ID)
}

func readManifest(b *testing.B, cfg *config.Pipeline, id uint64) checkpoint.Manifest {
	b.Helper()
	m, err := checkpoint.Read(engine.CheckpointRoot(cfg), id)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// newestCheckpoint returns the id of the newest completed checkpoint.
func newestCheckpoint(b *testing.B, cfg *config.Pipeline) uint64 {
	b.Helper()
	ids, err := checkpoint.List(engine.CheckpointRoot(cfg))
	if err != nil {
		b.Fatal(err)
	}
	if len(ids) == 0 {
		b.Fatal("no checkpoint was written")
	}
	return ids[0]
}

// metricSum accumulates per-iteration figures and reports their means.
type metricSum struct {
	units []string
	sums  map[string]float64
}

func (s *metricSum) add(unit string, v float64) {
	if s.sums == nil {
		s.sums = map[string]float64{}
	}
	if _, ok := s.sums[unit]; !ok {
		s.units = append(s.units, unit)
	}
	s.sums[unit] += v
}

func (s *metricSum) report(b *testing.B, iterations int) {
	for _, u := range s.units {
		b.ReportMetric(s.sums[u]/float64(iterations), u)
	}
}

// median returns the median of vs (0 when empty).
func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
