package engine

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/natsio"
)

// sum2Pkg is the two-input test guest: per key, the sum of each input's
// "v" values in state "sum-0" and "sum-1" (and counts in "count-0",
// "count-1"). Sums commute, so every correct run over the same records ends
// in the same state, whatever the interleaving, parallelism or restores in
// between.
const sum2Pkg = "./internal/testguests/sum2"

// Subjects of the sum pipeline's sources and sink.
const (
	sumSubjectA   = "suma.in"
	sumSubjectB   = "sumb.in"
	sumSubjectOut = "sumout.out"
)

// sumSetup describes a sum2 pipeline: sources "a" and "b" feed operator
// "sum" (inputs 0 and 1), whose output goes to subject sumSubjectOut.
type sumSetup struct {
	dataDir        string
	port           int
	module         string
	parallelism    int
	maxParallelism int    // 0: the default
	stateVersion   string // "": none declared
	checkpoint     string // body of a checkpoint block; "": no block
	sinkMode       string // the sink's mode; "": the default
	eventIDField   string // source a's event_id json_field; "": none
	retentionA     string // stream SUMA's retention; "": the default
}

// newSumSetup returns a setup with a fresh data dir and port and the built
// guest, already compiled in the data dir's compilation cache.
func newSumSetup(t *testing.T, parallelism int) sumSetup {
	t.Helper()
	s := sumSetup{dataDir: testutil.PrivateTempDir(t), port: testutil.FreePort(t), module: testutil.GoGuest(t, sum2Pkg), parallelism: parallelism}
	seedCompilationCache(t, s.dataDir, s.module)
	return s
}

// warmed lists the modules this process compiled into the shared
// compilation cache. Compiling a Go guest takes seconds on a busy machine,
// and every test pipeline has its own data dir, so each would compile it
// again.
var warmed struct {
	sync.Mutex
	done map[string]bool
}

// sharedCacheDataDir holds a compilation cache shared by test processes.
// wazero keys its entries by module content and wazero version and writes
// each as a new file renamed into place, so processes can share it and it
// only grows with new builds of the guests.
func sharedCacheDataDir() string { return filepath.Join(os.TempDir(), "wasmstream-engine-test-cache") }

// seedCompilationCache compiles module into the shared compilation cache
// (a cache hit after the first time) and links the cache's files into
// dataDir's. The cache never changes a file, so the links are safe.
func seedCompilationCache(t *testing.T, dataDir, module string) {
	t.Helper()
	shared := sumSetup{dataDir: sharedCacheDataDir(), port: testutil.FreePort(t), module: module, parallelism: 1}
	warmed.Lock()
	defer warmed.Unlock()
	if !warmed.done[module] {
		cfg := shared.load(t)
		rt, mod, err := compileOperator(context.Background(), compilationCache(cfg.DataDir), &cfg.Operators[0], "")
		if err != nil {
			t.Fatal(err)
		}
		_ = mod.Close(context.Background())
		_ = rt.Close(context.Background())
		if warmed.done == nil {
			warmed.done = map[string]bool{}
		}
		warmed.done[module] = true
	}
	linkTree(t, filepath.Join(shared.dataDir, "cache"), filepath.Join(dataDir, "cache"))
}

// linkTree hard-links (or copies) every file of src into dst.
func linkTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o700)
		}
		if _, err := os.Stat(target); err == nil {
			return nil
		}
		if os.Link(path, target) == nil {
			return nil
		}
		return copyOneFile(path, target)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// load writes the pipeline file into a new temp dir and loads it.
func (s sumSetup) load(t *testing.T) *config.Pipeline {
	t.Helper()
	var extra strings.Builder
	if s.maxParallelism > 0 {
		fmt.Fprintf(&extra, "  max_parallelism = %d\n", s.maxParallelism)
	}
	if s.stateVersion != "" {
		fmt.Fprintf(&extra, "  state_version = %q\n", s.stateVersion)
	}
	sinkExtra, srcExtra, streamA := "", "", ""
	if s.retentionA != "" {
		streamA = fmt.Sprintf("  retention = %q\n", s.retentionA)
	}
	if s.sinkMode != "" {
		sinkExtra = fmt.Sprintf("  mode = %q\n", s.sinkMode)
	}
	if s.eventIDField != "" {
		srcExtra = fmt.Sprintf("  event_id { json_field = %q }\n", s.eventIDField)
	}
	ckpt := ""
	if s.checkpoint != "" {
		ckpt = "checkpoint {\n" + s.checkpoint + "\n}\n"
	}
	src := fmt.Sprintf(`
name     = "sums"
data_dir = %q
server { embedded_port = %d }
stream "SUMA" {
  subjects = ["suma.>"]
%s}
stream "SUMB" { subjects = ["sumb.>"] }
stream "SUMOUT" {
  subjects         = ["sumout.>"]
  duplicate_window = "10m"
}
source "a" {
  stream  = "SUMA"
  subject = %q
%s}
source "b" {
  stream  = "SUMB"
  subject = %q
}
%soperator "sum" {
  module      = %q
  inputs      = ["a", "b"]
  parallelism = %d
%s  key { json_field = "k" }
  outputs = { out = "sums" }
}
sink "sums" {
  subject = %q
%s}
`, s.dataDir, s.port, streamA, sumSubjectA, srcExtra, sumSubjectB, ckpt, s.module, s.parallelism, extra.String(), sumSubjectOut, sinkExtra)
	path := filepath.Join(t.TempDir(), "pipeline.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// sumRecord is one input record of the sum pipeline.
type sumRecord struct {
	input int // 0: source a, 1: source b
	key   string
	v     int64
}

func (r sumRecord) subject() string {
	if r.input == 0 {
		return sumSubjectA
	}
	return sumSubjectB
}

func (r sumRecord) json() []byte {
	return fmt.Appendf(nil, `{"k":%q,"v":%d}`, r.key, r.v)
}

// sumRecords returns n deterministic records over keys keys, both inputs
// mixed, values varying with seed (negative ones included, so a record
// applied twice cannot hide behind a total that only grows).
func sumRecords(n, keys, seed int) []sumRecord {
	recs := make([]sumRecord, n)
	for i := range recs {
		x := i*7919 + seed*104729
		recs[i] = sumRecord{input: (x / 3) % 2, key: fmt.Sprintf("key-%d", (i*31+seed)%keys), v: int64(x%97) - 20}
	}
	return recs
}

// sumsKey names one sum: the state name and the key.
func sumsKey(name, key string) string { return name + "/" + key }

// expectedSums is the state a correct run over recs ends in.
func expectedSums(recs ...[]sumRecord) map[string]int64 {
	want := map[string]int64{}
	for _, rs := range recs {
		for _, r := range rs {
			want[sumsKey(fmt.Sprintf("sum-%d", r.input), r.key)] += r.v
		}
	}
	return want
}

// publishSums publishes recs, in order, through the server at reach.
func publishSums(t *testing.T, reach natsio.ServerOptions, recs []sumRecord) {
	t.Helper()
	if err := sendSums(reach, recs, 0); err != nil {
		t.Fatal(err)
	}
}

// sendSums publishes recs, in order, through the server at reach, pausing
// for pause after each one (0: no pause). Safe in any goroutine.
func sendSums(reach natsio.ServerOptions, recs []sumRecord, pause time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := natsio.Connect(ctx, reach)
	if err != nil {
		return err
	}
	defer c.Close()
	sink := c.NewSink(1024)
	defer sink.Close()
	for _, r := range recs {
		if err := sink.Publish(ctx, natsio.OutMessage{Subject: r.subject(), Data: r.json()}); err != nil {
			return err
		}
		if pause > 0 {
			if err := sink.Flush(ctx); err != nil {
				return err
			}
			time.Sleep(pause)
		}
	}
	return sink.Flush(ctx)
}

// publishSumsStored publishes recs with no pipeline running, through a
// temporary embedded server on the pipeline's store.
func publishSumsStored(t *testing.T, cfg *config.Pipeline, recs []sumRecord) {
	t.Helper()
	c, err := ConnectClient(context.Background(), cfg, hclog.NewNullLogger(), AsControl)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	publishSums(t, c.Reach(), recs)
}

// quietOptions are run options for tests: warnings to the test log,
// checkpoints only at the stop unless opts says otherwise.
func quietOptions(t *testing.T, opts Options) Options {
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	if opts.StopWhenIdle == 0 {
		opts.StopWhenIdle = time.Second // long enough that a feed slowed by a loaded machine does not look idle
	}
	if opts.Checkpoint.Interval == 0 {
		opts.Checkpoint.Interval = -1
	}
	return opts
}

// runSums opens the pipeline, publishes recs, runs it until it is idle
// (final checkpoint) and returns its stats.
func runSums(t *testing.T, cfg *config.Pipeline, opts Options, recs []sumRecord) Stats {
	t.Helper()
	return runSumsWith(t, cfg, opts, func(p *Pipeline) error { return sendSums(p.Reach(), recs, 0) })
}

// runSumsWith is runSums with feed publishing while the pipeline runs (it
// must not pause for as long as StopWhenIdle); the run ends once the
// sources were idle for that long, and then feed must have returned.
func runSumsWith(t *testing.T, cfg *config.Pipeline, opts Options, feed func(p *Pipeline) error) Stats {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := Open(ctx, cfg, quietOptions(t, opts))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	fed := make(chan error, 1)
	go func() { fed <- feed(p) }()
	runErr := p.Run(ctx)
	select {
	case err := <-fed:
		if err != nil {
			t.Fatalf("publishing the input: %v", err)
		}
	default:
		t.Fatal("the run stopped as idle while the input was still being published; the feed paused too long")
	}
	if runErr != nil {
		t.Fatal(runErr)
	}
	return p.Stats()
}

// openRefused opens cfg expecting a refusal; it fails the test if the
// pipeline opens.
func openRefused(t *testing.T, cfg *config.Pipeline, opts Options) error {
	t.Helper()
	p, err, panicked := openCatchingPanic(cfg, quietOptions(t, opts))
	if panicked != nil {
		t.Fatalf("Open panicked instead of returning its error: %v", panicked)
	}
	if err == nil {
		p.Close()
		t.Fatal("the pipeline opened; want a refusal")
	}
	return err
}

// openCatchingPanic is Open that turns a panic into a value.
func openCatchingPanic(cfg *config.Pipeline, opts Options) (p *Pipeline, err error, panicked any) {
	defer func() { panicked = recover() }()
	p, err = Open(context.Background(), cfg, opts)
	return p, err, nil
}

// newestCheckpoint returns the newest checkpoint's manifest.
func newestCheckpoint(t *testing.T, cfg *config.Pipeline) checkpoint.Manifest {
	t.Helper()
	root := CheckpointRoot(cfg)
	ids, err := checkpoint.List(root)
	if err != nil || len(ids) == 0 {
		t.Fatalf("no checkpoint in %s: %v", root, err)
	}
	return readManifest(t, cfg, ids[0])
}

func readManifest(t *testing.T, cfg *config.Pipeline, id uint64) checkpoint.Manifest {
	t.Helper()
	m, err := checkpoint.Read(CheckpointRoot(cfg), id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// dumpState returns every state entry of checkpoint id.
func dumpState(t *testing.T, cfg *config.Pipeline, id uint64) []StateEntry {
	t.Helper()
	entries, err := DumpCheckpointState(CheckpointRoot(cfg), id)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// sumsOf decodes the sums of a sum2 state dump (counts are skipped).
func sumsOf(t *testing.T, entries []StateEntry) map[string]int64 {
	t.Helper()
	got := map[string]int64{}
	for _, e := range entries {
		if e.Operator != "sum" || len(e.Value) != 8 {
			t.Fatalf("unexpected state entry %+v", e)
		}
		if !strings.HasPrefix(e.Name, "sum-") {
			continue
		}
		got[sumsKey(e.Name, e.Key)] = int64(binary.LittleEndian.Uint64(e.Value))
	}
	return got
}

// checkSums fails unless checkpoint id holds exactly the sums of want
// (a sum of 0 may be absent).
func checkSums(t *testing.T, cfg *config.Pipeline, id uint64, want map[string]int64) {
	t.Helper()
	got := sumsOf(t, dumpState(t, cfg, id))
	diffSums(t, fmt.Sprintf("checkpoint %d", id), got, want)
}

func diffSums(t *testing.T, what string, got, want map[string]int64) {
	t.Helper()
	bad := 0
	for k, w := range want {
		if got[k] != w {
			bad++
			if bad <= 5 {
				t.Errorf("%s: %s = %d, want %d", what, k, got[k], w)
			}
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok && g != 0 {
			bad++
			t.Errorf("%s: unexpected %s = %d", what, k, g)
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d sums differ", what, bad, len(want))
	}
}

// lastOutputSums returns, per state name and key, the "sum" of the last
// output stored for it: the running total the sink saw last.
func lastOutputSums(t *testing.T, cfg *config.Pipeline) map[string]int64 {
	t.Helper()
	return lastSums(t, readSubject(t, cfg, sumSubjectOut))
}

// lastSums is the sum the last of msgs (sum2 outputs) carries for each
// input and key.
func lastSums(t *testing.T, msgs []natsio.Message) map[string]int64 {
	t.Helper()
	last := map[string]int64{}
	for _, m := range msgs {
		var o struct {
			K     string `json:"k"`
			Input int    `json:"input"`
			Sum   int64  `json:"sum"`
		}
		if err := json.Unmarshal(m.Data, &o); err != nil {
			t.Fatalf("output %q: %v", m.Data, err)
		}
		last[sumsKey(fmt.Sprintf("sum-%d", o.Input), o.K)] = o.Sum
	}
	return last
}

// treeDigest maps every file under dirs (relative path) to its SHA-256,
// to show that a refused run changed nothing.
func treeDigest(t *testing.T, dirs ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			out[path] = hex.EncodeToString(sum[:])
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func sameDigest(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for path, sum := range before {
		if after[path] != sum {
			t.Errorf("%s: %s changed or vanished", what, path)
		}
	}
	for path := range after {
		if _, ok := before[path]; !ok {
			t.Errorf("%s: %s appeared", what, path)
		}
	}
}

// copyDataDir copies a stopped pipeline's data dir file by file (no hard
// links, so that damaging a file of the copy touches nothing else), except
// the compilation cache, which it seeds with modules instead. The copy is
// private like the original (0700 directories, 0600 files): the embedded
// server refuses seeds others can read.
func copyDataDir(t *testing.T, src, dst string, modules ...string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir() && rel == "cache":
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(target, 0o700)
		}
		return copyOneFile(path, target)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range modules {
		seedCompilationCache(t, dst, m)
	}
}

func copyOneFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// replaceFile writes data to path as a new file (a new inode): checkpoint
// table files are hard-linked into the live state and other checkpoints,
// which an in-place write would damage too.
func replaceFile(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := path + ".replacing"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// editManifest rewrites checkpoint id's manifest with edit applied, encoded
// (and checksummed) as Write would: it stands for a checkpoint that another
// build wrote, which verifies but may not fit this one.
func editManifest(t *testing.T, cfg *config.Pipeline, id uint64, edit func(m *checkpoint.Manifest)) {
	t.Helper()
	m := readManifest(t, cfg, id)
	edit(&m)
	b, err := checkpoint.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	replaceFile(t, filepath.Join(checkpoint.Dir(CheckpointRoot(cfg), id), "MANIFEST.json"), b)
}

// wantRecoveryError fails unless err wraps ErrRecovery and its text names
// checkpoint id and contains every part of the cause.
func wantRecoveryError(t *testing.T, err error, id uint64, cause ...string) {
	t.Helper()
	if !errors.Is(err, ErrRecovery) {
		t.Fatalf("error %v does not wrap ErrRecovery", err)
	}
	if want := fmt.Sprintf("%s %d", ErrRecovery, id); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name checkpoint %d (%q)", err, id, want)
	}
	for _, c := range cause {
		if !strings.Contains(err.Error(), c) {
			t.Errorf("error %q does not say %q", err, c)
		}
	}
}

// skipInRacePass skips a test that exercises little concurrency in the
// -short run, which CI uses for the race detector pass (the full run has
// already run it): the race pass keeps the pipeline, alignment, rescale and
// stop tests.
func skipInRacePass(t *testing.T) {
	if testing.Short() {
		t.Skip("no concurrency to check beyond the other tests; runs in the full (non -short) pass")
	}
}
