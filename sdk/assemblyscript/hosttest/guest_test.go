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
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/internal/statetest"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

var (
	buildMu sync.Mutex
	built   = map[string][]byte{}
)

// needCompiler skips (or, under CI, fails) the test when node or the
// compiler installed in dir (relative to the repository root) is missing.
func needCompiler(t testing.TB, dir string) string {
	t.Helper()
	abs := filepath.Join(testutil.ModuleRoot(t), dir)
	_, errNode := exec.LookPath("node")
	_, errAsc := os.Stat(filepath.Join(abs, "node_modules", "assemblyscript"))
	if errNode != nil || errAsc != nil {
		msg := "AssemblyScript compiler missing in " + dir + ": run scripts/build-assemblyscript.sh --test to install it"
		if testutil.InCI() {
			t.Fatal(msg + " (CI must build every language)")
		}
		t.Skip(msg)
	}
	return abs
}

// build runs the command in dir and returns the module it wrote to out.
// Builds are cached per test process under key.
func build(t testing.TB, key, dir, out string, args ...string) []byte {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if b, ok := built[key]; ok {
		return b
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s in %s: %v\n%s", strings.Join(args, " "), dir, err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	built[key] = b
	return b
}

// testOperator compiles sdk/assemblyscript/test/operators/<name>.ts as the
// SDK's node tests do (test/build.mjs).
func testOperator(t testing.TB, name string) []byte {
	sdk := needCompiler(t, "sdk/assemblyscript")
	script := `import { buildOperator } from "./test/build.mjs"; await buildOperator(process.argv[1]);`
	return build(t, "test/"+name, sdk, filepath.Join(sdk, "build", "test", name+".wasm"),
		"node", "--input-type=module", "-e", script, name)
}

// referenceOperator compiles conformance/operators/assemblyscript/<op> as
// scripts/build-assemblyscript.sh does, into a temp dir.
func referenceOperator(t testing.TB, op string) []byte {
	dir := needCompiler(t, "conformance/operators/assemblyscript")
	out := filepath.Join(t.TempDir(), op+".wasm")
	return build(t, "conformance/"+op, dir, out, filepath.Join(dir, "node_modules", ".bin", "asc"), op+"/index.ts", "-o", out)
}

// procNs is what the guest's processing_time says.
const procNs = 1_700_000_000_123_456_789

func fixedClock() time.Time { return time.Unix(0, procNs) }

// guest is a live instance with its state and log.
type guest struct {
	inst  *host.Instance
	state *state.Backend
	log   *bytes.Buffer
}

// compile compiles wasm in a fresh runtime.
func compile(t testing.TB, wasm []byte) *host.Module {
	t.Helper()
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.RuntimeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(ctx) })
	m, err := rt.Compile(ctx, "as", wasm)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return m
}

// instantiate makes an instance of m on b (a fresh backend when nil) with
// output "out" and a JSON log at trace level.
func instantiate(t testing.TB, m *host.Module, config string, b *state.Backend) (*guest, error) {
	t.Helper()
	if b == nil {
		b = statetest.TTLBackend(t, "as", nil, nil)
	}
	g := &guest{state: b, log: &bytes.Buffer{}}
	cfg := host.InstanceConfig{
		Operator: "as",
		Config:   []byte(config),
		Outputs:  []string{"out"},
		Logger:   hclog.New(&hclog.LoggerOptions{Level: hclog.Trace, Output: g.log, JSONFormat: true}),
		Clock:    fixedClock,
	}
	inst, err := m.Instantiate(context.Background(), cfg, b)
	g.inst = inst
	if err == nil {
		t.Cleanup(func() { inst.Close(context.Background()) })
	}
	return g, err
}

// start is instantiate that must succeed.
func start(t testing.TB, m *host.Module, config string, b *state.Backend) *guest {
	t.Helper()
	g, err := instantiate(t, m, config, b)
	if err != nil {
		t.Fatalf("instantiate: %v\nlog: %s", err, g.log)
	}
	return g
}

// process runs one batch of (key, value) records and returns the outputs
// as "key:value".
func (g *guest) process(t testing.TB, kv ...string) []string {
	t.Helper()
	recs := make([]host.Record, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		recs = append(recs, host.Record{Key: []byte(kv[i]), Value: []byte(kv[i+1])})
	}
	outs, err := g.inst.Process(context.Background(), recs)
	if err != nil {
		t.Fatalf("process: %v\nlog: %s", err, g.log)
	}
	var got []string
	for _, o := range outs {
		got = append(got, string(o.Key)+":"+string(o.Value))
	}
	return got
}

// stateOf reads committed state name of key (nil when absent).
func (g *guest) stateOf(t testing.TB, key, name string) []byte {
	t.Helper()
	if err := g.state.SetCurrentKey([]byte(key)); err != nil {
		t.Fatal(err)
	}
	v, found, err := g.state.Get([]byte(name))
	if err != nil {
		t.Fatal(err)
	}
	if !found {
		return nil
	}
	return append([]byte(nil), v...)
}

// errorLogged reports whether the guest logged an error line holding every part.
func (g *guest) errorLogged(t testing.TB, parts ...string) bool {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSpace(g.log.String()), "\n") {
		var line struct {
			Level   string `json:"@level"`
			Message string `json:"@message"`
			Guest   bool   `json:"guest"`
		}
		if l == "" {
			continue
		}
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		ok := line.Guest && line.Level == "error"
		for _, p := range parts {
			ok = ok && strings.Contains(line.Message, p)
		}
		if ok {
			return true
		}
	}
	return false
}
