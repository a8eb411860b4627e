package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/state"
)

// newRuntime returns a compiler-engine runtime with the default page limit.
func newRuntime(tb testing.TB) *host.Runtime {
	tb.Helper()
	rt, err := host.NewRuntime(context.Background(), host.RuntimeConfig{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = rt.Close(context.Background()) })
	return rt
}

// newBackend returns Pebble-backed keyed state in a temp dir, owning every
// key group.
func newBackend(tb testing.TB) *state.Backend {
	tb.Helper()
	s, err := state.Open(tb.TempDir(), state.Options{CacheSizeBytes: 8 << 20})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	b, err := s.Backend(state.BackendOptions{Operator: "op", Range: state.KeyGroupRange{Start: 0, End: state.DefaultMaxParallelism}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(b.Close)
	return b
}

// logLine is one line the host logged, guest lines included.
type logLine struct {
	Level   string `json:"@level"`
	Message string `json:"@message"`
	Guest   bool   `json:"guest"`
}

// logSink captures the host's log as JSON lines.
type logSink struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *logSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

// guestLines returns the lines the guest logged so far and forgets them.
func (s *logSink) guestLines(tb testing.TB) []logLine {
	tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var lines []logLine
	dec := json.NewDecoder(&s.buf)
	for dec.More() {
		var l logLine
		if err := dec.Decode(&l); err != nil {
			tb.Fatalf("host log is not JSON lines: %v", err)
		}
		if l.Guest {
			lines = append(lines, l)
		}
	}
	s.buf.Reset()
	return lines
}

// guest is one module with its state and log, instantiated on demand.
type guest struct {
	tb    testing.TB
	mod   *host.Module
	cfg   host.InstanceConfig
	state *state.Backend
	log   *logSink
	inst  *host.Instance
}

// newGuest compiles wasm; cfg.Outputs defaults to ["out"].
func newGuest(tb testing.TB, wasm []byte, cfg host.InstanceConfig) *guest {
	tb.Helper()
	return guestOf(tb, compile(tb, newRuntime(tb), wasm), cfg)
}

// compile compiles wasm in rt.
func compile(tb testing.TB, rt *host.Runtime, wasm []byte) *host.Module {
	tb.Helper()
	mod, err := rt.Compile(context.Background(), "op", wasm)
	if err != nil {
		tb.Fatal(err)
	}
	return mod
}

// guestOf makes a guest of a compiled module, with its own state and log.
func guestOf(tb testing.TB, mod *host.Module, cfg host.InstanceConfig) *guest {
	tb.Helper()
	if cfg.Outputs == nil {
		cfg.Outputs = []string{"out"}
	}
	cfg.Operator = "op"
	sink := &logSink{}
	cfg.Logger = hclog.New(&hclog.LoggerOptions{Output: sink, Level: hclog.Trace, JSONFormat: true})
	return &guest{tb: tb, mod: mod, cfg: cfg, state: newBackend(tb), log: sink}
}

// start instantiates the guest (running ws_init).
func (g *guest) start() error {
	inst, err := g.mod.Instantiate(context.Background(), g.cfg, g.state)
	if err != nil {
		return err
	}
	g.inst = inst
	return nil
}

// mustStart is start that fails the test on error.
func (g *guest) mustStart() *guest {
	g.tb.Helper()
	if err := g.start(); err != nil {
		g.tb.Fatalf("instantiate: %v", err)
	}
	return g
}

// process runs one batch on the current instance.
func (g *guest) process(recs ...host.Record) ([]host.Output, error) {
	return g.inst.Process(context.Background(), recs)
}

// mustProcess is process that fails the test on error.
func (g *guest) mustProcess(recs ...host.Record) []host.Output {
	g.tb.Helper()
	outs, err := g.process(recs...)
	if err != nil {
		g.tb.Fatalf("process: %v\nguest log: %+v", err, g.log.guestLines(g.tb))
	}
	return outs
}

// stateOf reads committed state name of key.
func (g *guest) stateOf(key, name string) ([]byte, bool) {
	g.tb.Helper()
	if err := g.state.SetCurrentKey([]byte(key)); err != nil {
		g.tb.Fatal(err)
	}
	v, ok, err := g.state.Get([]byte(name))
	if err != nil {
		g.tb.Fatal(err)
	}
	return append([]byte(nil), v...), ok
}

// result is what a batch led to under the engine's failure policy.
type result struct {
	outs []host.Output // with Record indexes into the original batch
	dead []int         // indexes of dead-lettered records
	kind []error       // the error kind of each dead letter
}

// runBatch runs recs as the engine does (ABI.md 7.3): a failed record is
// dead-lettered, a discarded instance replaced, and the batch re-run
// without the records isolated so far.
func (g *guest) runBatch(recs []host.Record) result {
	g.tb.Helper()
	var res result
	idx := make([]int, len(recs)) // position in recs of each record still in the batch
	for i := range idx {
		idx[i] = i
	}
	for len(idx) > 0 {
		batch := make([]host.Record, len(idx))
		for i, j := range idx {
			batch[i] = recs[j]
		}
		outs, err := g.process(batch...)
		if err == nil {
			for _, o := range outs {
				o.Record = idx[o.Record]
				o.Key, o.Value, o.Headers = bytes.Clone(o.Key), bytes.Clone(o.Value), bytes.Clone(o.Headers)
				res.outs = append(res.outs, o)
			}
			return res
		}
		var ge *host.GuestError
		if !errors.As(err, &ge) {
			g.tb.Fatalf("process: %v", err)
		}
		bad := max(ge.Record, 0)
		res.dead = append(res.dead, idx[bad])
		res.kind = append(res.kind, ge.Kind)
		idx = append(idx[:bad:bad], idx[bad+1:]...)
		if g.inst.Closed() {
			g.mustStart()
		}
	}
	return res
}

// rec makes a record on input 0.
func rec(key, value string) host.Record {
	return host.Record{Key: []byte(key), Value: []byte(value)}
}

// headers encodes name/value pairs as an ABI header list.
func headers(pairs ...string) []byte {
	var b []byte
	for i := 0; i+1 < len(pairs); i += 2 {
		b = abi.AppendHeader(b, pairs[i], pairs[i+1])
	}
	return b
}

// decodeHeaders returns an ABI header list as name/value pairs.
func decodeHeaders(tb testing.TB, b []byte) []string {
	tb.Helper()
	var pairs []string
	hr := abi.NewHeaderReader(b)
	for {
		n, v, more, err := hr.Next()
		if err != nil {
			tb.Fatalf("emitted headers are malformed: %v", err)
		}
		if !more {
			return pairs
		}
		pairs = append(pairs, string(n), string(v))
	}
}
