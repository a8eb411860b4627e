package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/natsio"
)

// BenchmarkYardstick measures wasmstream pipelines against the raw nats.go
// ceiling on the same server and the same records: an ordered consumer
// reading stream IN and republishing every record with PublishMsgAsync,
// with a Nats-Msg-Id ("raw-ids", the ceiling: the idempotent sink sends
// one too) and without ("raw-noids"). The pipelines are one operator
// between stream IN and an output stream, idempotent sink, checkpoints
// only at the stop: "<lang>-passthrough" (emit each record unchanged) and
// "<lang>-counter" (get, put, emit per record over YARDSTICK_KEYS keys).
//
// Stream IN holds YARDSTICK_N records of 100 bytes with a Key header,
// published beforehand. Each case's clock runs from opening the consumer
// (raw) or starting Run (pipeline) until every output is acknowledged (for
// a pipeline: Run returned after its final checkpoint); every case then
// checks that its output stream holds exactly N messages.
//
// Servers (YARDSTICK_SERVERS, default "external,embedded"): "external" is
// a nats-server child process on 127.0.0.1 (YARDSTICK_NATS_SERVER, else
// nats-server on PATH or in ~/go/bin; skipped when none is found), shared
// by all rounds, every case writing a fresh output stream; "embedded" is
// the pipeline's own embedded server, fresh per case, the raw loop running
// against the embedded server of a pipeline that is opened but not run.
//
// A round runs every case once, in an order rotated by one per round, and
// prints each case's records/s, its ratio to raw-ids of the same server
// and round, and the load average. The medians over YARDSTICK_ROUNDS
// rounds are reported as metrics and printed as a table. The defaults are
// tiny so that the CI smoke (-benchtime 1x) stays fast; the sizes recorded
// in BENCHMARKS.md are set by scripts/bench-yardstick.sh. YARDSTICK_LANGS
// (default "go") lists the guest languages, YARDSTICK_CASES optionally
// keeps only the named cases (e.g. "embedded/go-counter", or "go-counter"
// for both servers).
func BenchmarkYardstick(b *testing.B) {
	y := &yardstick{
		n:      envInt(b, "YARDSTICK_N", 2000),
		keys:   envInt(b, "YARDSTICK_KEYS", 100_000),
		rounds: envInt(b, "YARDSTICK_ROUNDS", 1),
		ctx:    context.Background(),
	}
	y.cases = y.buildCases(b, envList("YARDSTICK_SERVERS", "external,embedded"), envList("YARDSTICK_LANGS", "go"), envList("YARDSTICK_CASES", ""))
	if len(y.cases) == 0 {
		b.Skip("no yardstick case to run")
	}
	fmt.Printf("yardstick: N=%d keys=%d rounds=%d, load %s\n", y.n, y.keys, y.rounds, loadAvg())
	for r := 0; r < y.rounds; r++ {
		y.runRound(b, r)
	}
	y.report(b)
}

// yardstick holds the cases and the results of a BenchmarkYardstick run.
type yardstick struct {
	n, keys, rounds int
	ctx             context.Context
	cases           []ysCase
	ext             rawServer            // the external server, when started
	cacheDir        string               // the compilation cache shared by all cases
	passthroughGo   string               // the module of the idle pipeline of embedded raw cases
	seq             int                  // numbers output streams and pipelines
	rates           map[string][]float64 // case label -> records/s per round
	ratios          map[string][]float64 // case label -> ratio to raw-ids per round
}

// ysCase is one measured configuration.
type ysCase struct {
	server string // "external" or "embedded"
	name   string // "raw-ids", "raw-noids" or "<lang>-<operator>"
	wasm   string // the operator module; empty for the raw loop
}

func (c ysCase) label() string { return c.server + "/" + c.name }

func (c ysCase) raw() bool { return c.wasm == "" }

// buildCases lists the cases in their first-round order and starts the
// external server when a case needs it.
func (y *yardstick) buildCases(b *testing.B, servers, langs, only []string) []ysCase {
	var names []string
	modules := map[string]string{}
	for _, lang := range langs {
		for _, op := range ysOperators {
			path, missing := ysGuest(b, lang, op)
			if missing != "" {
				fmt.Printf("yardstick: skipping %s-%s: %s\n", lang, op, missing)
				continue
			}
			names = append(names, lang+"-"+op)
			modules[lang+"-"+op] = path
		}
	}
	var cases []ysCase
	for _, server := range servers {
		if server == "external" && y.startExternal(b) == "" {
			continue
		}
		if server != "external" && server != "embedded" {
			b.Fatalf("YARDSTICK_SERVERS: unknown server %q (want external, embedded)", server)
		}
		for _, name := range append([]string{"raw-ids", "raw-noids"}, names...) {
			c := ysCase{server: server, name: name, wasm: modules[name]}
			if keep(only, c) {
				cases = append(cases, c)
			}
		}
	}
	y.passthroughGo, _ = ysGuest(b, "go", "passthrough")
	return cases
}

// keep reports whether c is among only (all when only is empty). Ratios
// need raw-ids of the same server: without it (e.g. CASES=go-counter, to
// profile one case alone) they are reported as 0.
func keep(only []string, c ysCase) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if o == c.name || o == c.label() {
			return true
		}
	}
	return false
}

// startExternal starts the external server and stores stream IN on it
// once; it returns "" when no nats-server binary is found.
func (y *yardstick) startExternal(b *testing.B) string {
	bin := ysServerBinary(b)
	if bin == "" {
		fmt.Println("yardstick: skipping external: no nats-server (set YARDSTICK_NATS_SERVER)")
		return ""
	}
	y.ext = rawServer{url: ysStartServer(b, bin)}
	if err := rawCreateStream(y.ctx, y.ext, "IN", "in"); err != nil {
		b.Fatal(err)
	}
	if err := rawPublishInput(y.ctx, y.ext, "in", y.n, y.keys); err != nil {
		b.Fatal(err)
	}
	return y.ext.url
}

// runRound runs every case once, starting at case r.
func (y *yardstick) runRound(b *testing.B, r int) {
	got := map[string]float64{}
	for i := range y.cases {
		c := y.cases[(r+i)%len(y.cases)]
		load := loadAvg()
		elapsed := y.runCase(b, c)
		got[c.label()] = float64(y.n) / elapsed.Seconds()
		fmt.Printf("yardstick round %d: %-26s %9.0f records/s (load %s)\n", r+1, c.label(), got[c.label()], load)
	}
	if y.rates == nil {
		y.rates, y.ratios = map[string][]float64{}, map[string][]float64{}
	}
	for _, c := range y.cases {
		y.rates[c.label()] = append(y.rates[c.label()], got[c.label()])
		if base := got[c.server+"/raw-ids"]; base > 0 {
			y.ratios[c.label()] = append(y.ratios[c.label()], got[c.label()]/base)
		}
	}
}

// runCase measures one case and checks its output stream.
func (y *yardstick) runCase(b *testing.B, c ysCase) time.Duration {
	y.seq++
	out := "OUT" + strconv.Itoa(y.seq)
	subject := "out." + strconv.Itoa(y.seq)
	if c.server == "external" {
		return y.runExternal(b, c, out, subject)
	}
	return y.runEmbedded(b, c, out, subject)
}

func (y *yardstick) runExternal(b *testing.B, c ysCase, out, subject string) time.Duration {
	defer func() {
		if err := rawDeleteStream(y.ctx, y.ext, out); err != nil {
			b.Fatal(err)
		}
	}()
	if c.raw() {
		if err := rawCreateStream(y.ctx, y.ext, out, subject); err != nil {
			b.Fatal(err)
		}
		return y.measureRaw(b, c, y.ext, out, subject)
	}
	p := ckOpen(b, y.config(b, c.wasm, fmt.Sprintf("url = %q", y.ext.url), out, subject), onDemand, noRecovery)
	defer p.Close()
	return y.measurePipeline(b, p, y.ext, out)
}

func (y *yardstick) runEmbedded(b *testing.B, c ysCase, out, subject string) time.Duration {
	wasm := c.wasm
	if c.raw() {
		wasm = y.passthroughGo // opened for its server only, never run
	}
	p := ckOpen(b, y.config(b, wasm, fmt.Sprintf("embedded_port = %d", testutil.FreePort(b)), out, subject), onDemand, noRecovery)
	defer p.Close()
	url := reachRaw(p.Reach())
	if err := rawPublishInput(y.ctx, url, "in", y.n, y.keys); err != nil {
		b.Fatal(err)
	}
	if c.raw() {
		return y.measureRaw(b, c, url, out, subject)
	}
	return y.measurePipeline(b, p, url, out)
}

func (y *yardstick) measureRaw(b *testing.B, c ysCase, url rawServer, out, subject string) time.Duration {
	elapsed, err := rawLoop(y.ctx, url, "IN", subject, y.n, c.name == "raw-ids")
	if err != nil {
		b.Fatalf("%s: %v", c.label(), err)
	}
	y.expectStored(b, url, out)
	return elapsed
}

func (y *yardstick) measurePipeline(b *testing.B, p *engine.Pipeline, url rawServer, out string) time.Duration {
	start := time.Now()
	run := startRun(p)
	run.waitProcessed(b, uint64(y.n))
	run.finish(b)
	elapsed := time.Since(start)
	y.expectStored(b, url, out)
	return elapsed
}

// expectStored fails the benchmark unless stream out holds exactly N
// messages: a case that lost or doubled outputs measures nothing.
func (y *yardstick) expectStored(b *testing.B, url rawServer, out string) {
	got, err := rawStreamCount(y.ctx, url, out)
	if err != nil {
		b.Fatal(err)
	}
	if got != uint64(y.n) {
		b.Fatalf("stream %s holds %d messages, want %d", out, got, y.n)
	}
}

// config writes and loads the pipeline of a case: operator wasm keyed by
// the Key header from stream IN to stream out (subject), idempotent sink,
// on the server that serverAttr names. Name and data dir are fresh, so no
// checkpoint or message id of an earlier case is reused.
func (y *yardstick) config(b *testing.B, wasm, serverAttr, out, subject string) *config.Pipeline {
	b.Helper()
	dir := b.TempDir()
	y.shareCompileCache(b, filepath.Join(dir, "data"))
	src := fmt.Sprintf(`name = "ys%d"
data_dir = %q
server { %s }
stream "IN" { subjects = ["in"] }
stream %q { subjects = [%q] }
source "in" { stream = "IN" }
operator "op" {
  module  = %q
  inputs  = ["in"]
  key { header = "Key" }
  outputs = { out = "out" }
}
sink "out" {
  subject = %q
  mode    = "idempotent"
}
`, y.seq, filepath.Join(dir, "data"), serverAttr, out, subject, wasm, subject)
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

// shareCompileCache points the compilation cache of a pipeline whose data
// dir is dataDir at one directory for the whole run, so that each module
// is compiled once, not once per case (compiling is not measured, but a
// Go guest takes seconds to compile and the CI smoke has to stay short).
func (y *yardstick) shareCompileCache(b *testing.B, dataDir string) {
	b.Helper()
	if y.cacheDir == "" {
		y.cacheDir = b.TempDir()
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.Symlink(y.cacheDir, filepath.Join(dataDir, "cache")); err != nil {
		b.Fatal(err)
	}
}

// report prints the table of medians and reports them as metrics.
func (y *yardstick) report(b *testing.B) {
	fmt.Printf("yardstick medians over %d rounds of %d records (load at the end %s):\n", y.rounds, y.n, loadAvg())
	fmt.Printf("| case | median records/s | median ratio to raw-ids | records/s per round |\n|---|---|---|---|\n")
	for _, c := range y.cases {
		rates, ratios := y.rates[c.label()], y.ratios[c.label()]
		var runs []string
		for _, r := range rates {
			runs = append(runs, strconv.FormatFloat(r, 'f', 0, 64))
		}
		fmt.Printf("| %s | %.0f | %.3f | %s |\n", c.label(), median(rates), median(ratios), strings.Join(runs, " · "))
		unit := strings.ReplaceAll(c.label(), "/", "-")
		b.ReportMetric(median(rates), unit+"-rec/s")
		if c.name != "raw-ids" {
			b.ReportMetric(median(ratios), unit+"-x")
		}
	}
}

// reachRaw is how the raw loop reaches the server of a pipeline: nats.go
// options for the credentials natsio would use.
func reachRaw(o natsio.ServerOptions) rawServer {
	srv := rawServer{url: o.URL}
	switch {
	case o.NkeySeedFile != "":
		opt, err := nats.NkeyOptionFromSeed(o.NkeySeedFile)
		if err != nil {
			opt = func(*nats.Options) error { return err }
		}
		srv.opts = append(srv.opts, opt)
	case o.CredentialsFile != "":
		srv.opts = append(srv.opts, nats.UserCredentials(o.CredentialsFile))
	case o.User != "":
		srv.opts = append(srv.opts, nats.UserInfo(o.User, o.Password))
	case o.Token != "":
		srv.opts = append(srv.opts, nats.Token(o.Token))
	}
	if o.InboxPrefix != "" {
		srv.opts = append(srv.opts, nats.CustomInboxPrefix(o.InboxPrefix))
	}
	return srv
}

// envList reads a comma-separated list from name, or def when unset.
func envList(name, def string) []string {
	raw := strings.TrimSpace(os.Getenv(name))
	if raw == "" {
		raw = def
	}
	var out []string
	for _, f := range strings.Split(raw, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// loadAvg is the machine's 1, 5 and 15 minute load averages.
func loadAvg() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(raw))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
