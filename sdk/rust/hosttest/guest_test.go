package hosttest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// Debian's Rust toolchain: the rustup one usually has no wasm32 std.
const (
	rustc   = "/usr/bin/rustc"
	cargo   = "/usr/bin/cargo"
	wasmStd = "/usr/lib/rustlib/wasm32-unknown-unknown"
)

var (
	buildMu sync.Mutex
	built   = map[string][]byte{}
)

// rustModule builds the cdylib crate in dir (relative to the repository
// root) for wasm32 and returns the bytes of its module lib.wasm. Builds are
// cached per test process; Cargo's own cache makes a rebuild cheap.
func rustModule(t testing.TB, dir, lib string) []byte {
	t.Helper()
	for _, p := range []string{rustc, cargo, wasmStd} {
		if _, err := os.Stat(p); err != nil {
			msg := "Rust toolchain missing (" + p + "): run scripts/build-rust.sh to install it"
			if testutil.InCI() {
				t.Fatal(msg + " (CI must build every language)")
			}
			t.Skip(msg)
		}
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	if b, ok := built[dir]; ok {
		return b
	}
	crate := filepath.Join(testutil.ModuleRoot(t), dir)
	cmd := exec.Command(cargo, "build", "--quiet", "--offline", "--release", "--target", "wasm32-unknown-unknown")
	cmd.Dir = crate
	cmd.Env = append(os.Environ(), "RUSTC="+rustc)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cargo build in %s: %v\n%s", dir, err, out)
	}
	b, err := os.ReadFile(filepath.Join(crate, "target", "wasm32-unknown-unknown", "release", lib+".wasm"))
	if err != nil {
		t.Fatal(err)
	}
	built[dir] = b
	return b
}

// probe returns the module of sdk/rust/testdata/probe.
func probe(t testing.TB) []byte { return rustModule(t, "sdk/rust/testdata/probe", "probe") }

// paymentRisk returns the module of the payment-risk example.
func paymentRisk(t testing.TB) []byte {
	return rustModule(t, "examples/payment-risk/rust", "payment_risk")
}

// guest is a live instance with its state and log.
type guest struct {
	inst  *host.Instance
	state *state.Backend
	log   *bytes.Buffer
}

// options of a test instance; zero fields take the host's defaults.
type options struct {
	config      string
	maxValueLen int
	maxEmits    int
	pages       uint32
}

// compile compiles wasm in a fresh runtime with the given page limit.
func compile(t testing.TB, wasm []byte, pages uint32) *host.Module {
	t.Helper()
	ctx := context.Background()
	if pages == 0 {
		pages = host.DefaultMemoryPages
	}
	rt, err := host.NewRuntime(ctx, host.RuntimeConfig{MemoryLimitPages: pages})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(ctx) })
	m, err := rt.Compile(ctx, "rust", wasm)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return m
}

// newBackend opens real Pebble state in a temp dir, owning every key group.
func newBackend(t testing.TB) *state.Backend {
	t.Helper()
	s, err := state.Open(t.TempDir(), state.Options{CacheSizeBytes: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	b, err := s.Backend(state.BackendOptions{Operator: "rust", Range: state.KeyGroupRange{Start: 0, End: state.DefaultMaxParallelism}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// instantiate makes an instance of m with outputs "out" and "side" and a
// JSON log at trace level.
func instantiate(t testing.TB, m *host.Module, o options) (*guest, error) {
	t.Helper()
	g := &guest{state: newBackend(t), log: &bytes.Buffer{}}
	logger := hclog.New(&hclog.LoggerOptions{Level: hclog.Trace, Output: g.log, JSONFormat: true})
	cfg := host.InstanceConfig{
		Operator:          "rust",
		Config:            []byte(o.config),
		Outputs:           []string{"out", "side"},
		MaxValueLen:       o.maxValueLen,
		MaxEmitsPerRecord: o.maxEmits,
		Logger:            logger,
		Clock:             fixedClock,
	}
	inst, err := m.Instantiate(context.Background(), cfg, g.state)
	g.inst = inst
	return g, err
}

// start is instantiate that must succeed.
func start(t testing.TB, wasm []byte, o options) *guest {
	t.Helper()
	g, err := instantiate(t, compile(t, wasm, o.pages), o)
	if err != nil {
		t.Fatalf("instantiate: %v", err)
	}
	t.Cleanup(func() { g.inst.Close(context.Background()) })
	return g
}

// process runs one batch of (key, value) records on input 0.
func (g *guest) process(t testing.TB, kv ...string) ([]host.Output, error) {
	t.Helper()
	recs := make([]host.Record, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		recs = append(recs, host.Record{Key: []byte(kv[i]), Value: []byte(kv[i+1])})
	}
	return g.inst.Process(context.Background(), recs)
}

// values returns the outputs' values as strings.
func values(outs []host.Output) []string {
	v := make([]string, len(outs))
	for i, o := range outs {
		v[i] = string(o.Value)
	}
	return v
}

// logLine is one line of the JSON log.
type logLine struct {
	Level   string `json:"@level"`
	Message string `json:"@message"`
	Guest   bool   `json:"guest"`
	Record  *int   `json:"record"`
}

// lines parses the log written so far and empties it.
func (g *guest) lines(t testing.TB) []logLine {
	t.Helper()
	var out []logLine
	for _, l := range strings.Split(strings.TrimSpace(g.log.String()), "\n") {
		if l == "" {
			continue
		}
		var ll logLine
		if err := json.Unmarshal([]byte(l), &ll); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		out = append(out, ll)
	}
	g.log.Reset()
	return out
}
