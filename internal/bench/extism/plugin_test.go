package extism

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// countName is the state the Extism counter keeps per key: the name of the
// wasmstream Go guest's ValueState, so both leave the same state behind.
var countName = []byte("count")

// counterWasm returns the Extism plug-in: the file named by
// $EXTISM_COUNTER_WASM (scripts/bench-extism.sh builds it there), or ./guest
// built now with the same flags.
func counterWasm(tb testing.TB) []byte {
	tb.Helper()
	path := os.Getenv("EXTISM_COUNTER_WASM")
	if path == "" {
		path = testutil.GoGuestIn(tb, testutil.ModuleRoot(tb), "./guest")
	}
	wasm, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return wasm
}

// repoRoot is the main module's directory: this module's go.mod is three
// levels below it (internal/bench/extism).
func repoRoot(tb testing.TB) string {
	tb.Helper()
	return filepath.Join(testutil.ModuleRoot(tb), "..", "..", "..")
}

// extismCounter drives the Extism plug-in one call per record over a
// wasmstream state backend, with the batch bracketing the host gives a
// wasmstream operator (BeginBatch, CommitBatch, RollbackBatch on failure).
type extismCounter struct {
	plugin  *extism.Plugin
	backend *state.Backend
	input   []byte
	// keep, if set, receives every output (the test compares them).
	keep func(key, value []byte)
}

// extismTimeoutMS is the per-call deadline of the extism-go-timeout variant:
// wasmstream's per-batch deadline (host.DefaultBatchTimeout), in the unit of
// Extism's manifest.
var extismTimeoutMS = uint64(host.DefaultBatchTimeout.Milliseconds())

// newExtismCounter compiles and instantiates the plug-in with WASI (a Go
// wasip1 module needs it) and the two state host functions, otherwise with
// the SDK's defaults (wazero's default runtime: the compiler on amd64).
// timeoutMS > 0 sets the manifest's timeout_ms: Extism then compiles with
// wazero's close-on-context-done checks, as wasmstream always does, and
// gives each call its own deadline.
func newExtismCounter(tb testing.TB, backend *state.Backend, timeoutMS uint64) *extismCounter {
	tb.Helper()
	ctx := context.Background()
	c := &extismCounter{backend: backend}
	manifest := extism.Manifest{
		Wasm:    []extism.Wasm{extism.WasmData{Data: counterWasm(tb), Name: "counter"}},
		Timeout: timeoutMS,
	}
	compiled, err := extism.NewCompiledPlugin(ctx, manifest, extism.PluginConfig{EnableWasi: true}, c.hostFunctions())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = compiled.Close(ctx) })
	c.plugin, err = compiled.Instance(ctx, extism.PluginInstanceConfig{ModuleConfig: wazero.NewModuleConfig()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.plugin.Close(ctx) })
	return c
}

// hostFunctions are count_get(key) -> value (0: none) and
// count_put(key, value), Extism memory offsets in and out. A failing
// backend panics, which wazero turns into the call's error.
func (c *extismCounter) hostFunctions() []extism.HostFunction {
	i64 := []extism.ValueType{extism.ValueTypeI64}
	get := extism.NewHostFunctionWithStack("count_get", func(_ context.Context, p *extism.CurrentPlugin, stack []uint64) {
		v, found := c.get(p, stack[0])
		stack[0] = 0
		if found {
			off, err := p.WriteBytes(v)
			if err != nil {
				panic(err)
			}
			stack[0] = off
		}
	}, i64, i64)
	put := extism.NewHostFunctionWithStack("count_put", func(_ context.Context, p *extism.CurrentPlugin, stack []uint64) {
		c.put(p, stack[0], stack[1])
	}, []extism.ValueType{extism.ValueTypeI64, extism.ValueTypeI64}, nil)
	return []extism.HostFunction{get, put}
}

func (c *extismCounter) get(p *extism.CurrentPlugin, keyOff uint64) ([]byte, bool) {
	key, err := p.ReadBytes(keyOff)
	if err != nil {
		panic(err)
	}
	if err := c.backend.SetCurrentKey(key); err != nil {
		panic(err)
	}
	v, found, err := c.backend.Get(countName)
	if err != nil {
		panic(err)
	}
	return v, found
}

func (c *extismCounter) put(p *extism.CurrentPlugin, keyOff, valueOff uint64) {
	key, err := p.ReadBytes(keyOff)
	if err != nil {
		panic(err)
	}
	value, err := p.ReadBytes(valueOff)
	if err != nil {
		panic(err)
	}
	if err := c.backend.SetCurrentKey(key); err != nil {
		panic(err)
	}
	if err := c.backend.Put(countName, value); err != nil {
		panic(err)
	}
}

// process is a b1.Processor: one plug-in call per record, the batch's
// state changes committed together or rolled back.
func (c *extismCounter) process(recs []host.Record) (int, error) {
	c.backend.BeginBatch()
	for i := range recs {
		if err := c.record(&recs[i]); err != nil {
			c.backend.RollbackBatch()
			return 0, err
		}
	}
	c.backend.CommitBatch()
	return len(recs), nil
}

func (c *extismCounter) record(r *host.Record) error {
	c.input = binary.LittleEndian.AppendUint32(c.input[:0], uint32(len(r.Key)))
	c.input = append(append(c.input, r.Key...), r.Value...)
	rc, out, err := c.plugin.Call("count", c.input)
	if err != nil || rc != 0 {
		return fmt.Errorf("extism count on key %q: rc %d: %v", r.Key, rc, err)
	}
	if len(out) != len(c.input) {
		return fmt.Errorf("extism count on key %q: %d output bytes, want %d", r.Key, len(out), len(c.input))
	}
	if c.keep != nil {
		klen := binary.LittleEndian.Uint32(out)
		c.keep(out[4:4+klen], out[4+klen:])
	}
	return nil
}
