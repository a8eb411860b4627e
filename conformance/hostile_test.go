package conformance

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// Limits of the hostile runs; hostile/expect.txt relies on them.
const (
	hostilePages   = 64
	hostileTimeout = 500 * time.Millisecond
	wellBehaved    = "well_behaved"
)

// TestHostile runs every module of the hostile corpus on both engines and
// requires the typed error of its table row; after each one the same runtime
// must still run a well-behaved module.
func TestHostile(t *testing.T) {
	rows := loadHostileTable(t)
	wasm := buildHostileCorpus(t, rows)
	for _, engine := range Engines {
		t.Run(string(engine), func(t *testing.T) {
			h := newHostileHost(t, engine, wasm[wellBehaved])
			for _, row := range rows {
				t.Run(row.Module, func(t *testing.T) {
					err := h.run(t, row, wasm[row.Module])
					checkHostileError(t, row, err)
					h.assertLivesOn(t, "after_"+row.Module)
				})
			}
		})
	}
}

func loadHostileTable(t *testing.T) []Hostile {
	t.Helper()
	f, err := os.Open(filepath.Join("hostile", "expect.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := ParseHostileTable(f)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// buildHostileCorpus builds every .wat of hostile/ into a temp dir. Every
// module must have a row and every row a module. Without wat2wasm the test
// fails under CI and skips elsewhere.
func buildHostileCorpus(t *testing.T, rows []Hostile) map[string][]byte {
	t.Helper()
	srcs, err := filepath.Glob(filepath.Join("hostile", "*.wat"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	wasm := map[string][]byte{}
	for _, src := range srcs {
		name := strings.TrimSuffix(filepath.Base(src), ".wat")
		dst := filepath.Join(dir, name+".wasm")
		err := BuildWat(src, dst)
		switch {
		case errors.Is(err, ErrNoWat2Wasm) && testutil.InCI():
			t.Fatal(err)
		case errors.Is(err, ErrNoWat2Wasm):
			t.Skip(err)
		case err != nil:
			t.Fatal(err)
		}
		if wasm[name], err = os.ReadFile(dst); err != nil {
			t.Fatal(err)
		}
	}
	checkCorpusMatchesTable(t, rows, wasm)
	return wasm
}

func checkCorpusMatchesTable(t *testing.T, rows []Hostile, wasm map[string][]byte) {
	t.Helper()
	inTable := map[string]bool{wellBehaved: true}
	for _, r := range rows {
		inTable[r.Module] = true
		if wasm[r.Module] == nil {
			t.Errorf("hostile/expect.txt line %d: no hostile/%s.wat", r.Line, r.Module)
		}
	}
	for name := range wasm {
		if !inTable[name] {
			t.Errorf("hostile/%s.wat has no row in hostile/expect.txt", name)
		}
	}
	if wasm[wellBehaved] == nil {
		t.Errorf("hostile/%s.wat is missing", wellBehaved)
	}
	if t.Failed() {
		t.FailNow()
	}
}

// hostileHost is one runtime that every hostile module of an engine runs
// in, with a state store and the compiled well-behaved module.
type hostileHost struct {
	rt    *host.Runtime
	store *state.Store
	well  *host.Module
}

func newHostileHost(t *testing.T, engine host.Engine, well []byte) *hostileHost {
	t.Helper()
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.RuntimeConfig{Engine: engine, MemoryLimitPages: hostilePages, ValidationTimeout: hostileTimeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(ctx) })
	store, err := state.Open(t.TempDir(), state.Options{CacheSizeBytes: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	mod, err := rt.Compile(ctx, wellBehaved, well)
	if err != nil {
		t.Fatal(err)
	}
	return &hostileHost{rt: rt, store: store, well: mod}
}

func hostileConfig(operator string) host.InstanceConfig {
	return host.InstanceConfig{Operator: operator, Outputs: []string{"out"}, BatchTimeout: hostileTimeout}
}

func hostileBatch() []host.Record {
	return []host.Record{
		{Key: []byte("a"), Value: []byte("v"), EventTime: 1},
		{Key: []byte("b"), Value: []byte("v"), EventTime: 2},
		{Key: []byte("a"), Value: []byte("v"), EventTime: 3},
	}
}

// run takes the module as far as the row's surface and returns the error
// that surfaced there; an error before it fails the test.
func (h *hostileHost) run(t *testing.T, row Hostile, wasm []byte) error {
	t.Helper()
	ctx := context.Background()
	mod, err := h.rt.Compile(ctx, row.Module, wasm)
	if row.Surface == SurfaceCompile {
		if err == nil {
			_ = mod.Close(ctx)
		}
		return err
	}
	if err != nil {
		t.Fatalf("hostile/expect.txt line %d expects the error at %s, but compile failed: %v", row.Line, row.Surface, err)
	}
	defer mod.Close(ctx)
	backend, err := h.store.Backend(stateOptions(row.Module))
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Close()
	inst, err := mod.Instantiate(ctx, hostileConfig(row.Module), backend)
	if row.Surface == SurfaceInstantiate {
		if err == nil {
			inst.Close(ctx)
		}
		return err
	}
	if err != nil {
		t.Fatalf("hostile/expect.txt line %d expects the error at process, but instantiate failed: %v", row.Line, err)
	}
	defer inst.Close(ctx)
	_, err = inst.Process(ctx, hostileBatch())
	h.checkAfterFault(t, row, inst, backend)
	return err
}

// checkAfterFault: a faulted instance is discarded (a rejected record keeps
// it), and the batch left no state behind.
func (h *hostileHost) checkAfterFault(t *testing.T, row Hostile, inst *host.Instance, backend *state.Backend) {
	t.Helper()
	keep := errors.Is(row.Kind, host.ErrRecordFailed)
	if inst.Closed() == keep {
		t.Errorf("instance closed = %t after %v, want %t", inst.Closed(), row.Kind, !keep)
	}
	if !keep {
		if _, err := inst.Process(context.Background(), hostileBatch()); !errors.Is(err, host.ErrInstanceClosed) {
			t.Errorf("Process on the discarded instance: %v, want ErrInstanceClosed", err)
		}
	}
	if got := h.commitAndScan(t, backend, row.Module); len(got) != 0 {
		t.Errorf("the failed batch left state behind: %v", got)
	}
}

// commitAndScan flushes the backend into Pebble and reads back the
// committed state of operator.
func (h *hostileHost) commitAndScan(t *testing.T, backend *state.Backend, operator string) State {
	t.Helper()
	pb := h.store.NewBatch()
	if _, err := backend.FlushTo(pb); err != nil {
		t.Fatal(err)
	}
	if err := h.store.Commit(pb); err != nil {
		t.Fatal(err)
	}
	got := State{}
	err := h.store.Scan(operator, fullRange, func(_ int, name, key, value []byte) error {
		got.Set(key, name, value)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func checkHostileError(t *testing.T, row Hostile, err error) {
	t.Helper()
	var ge *host.GuestError
	if !errors.As(err, &ge) {
		t.Fatalf("hostile/expect.txt line %d: got %v (%T), want a *host.GuestError", row.Line, err, err)
	}
	if !errors.Is(err, row.Kind) {
		t.Errorf("kind %v, want %v", ge.Kind, row.Kind)
	}
	if ge.Code != row.Code {
		t.Errorf("code %v, want %v", ge.Code, row.Code)
	}
	if ge.Func != row.Func {
		t.Errorf("func %q, want %q", ge.Func, row.Func)
	}
	if ge.Record != row.Record {
		t.Errorf("record %d, want %d", ge.Record, row.Record)
	}
	if ge.Operator != row.Module || !strings.Contains(err.Error(), `"`+row.Module+`"`) {
		t.Errorf("the error does not name operator %q", row.Module)
	}
	if t.Failed() {
		t.Logf("hostile/expect.txt line %d; the error: %v", row.Line, err)
	}
}

// assertLivesOn runs the well-behaved module on the same runtime: after any
// hostile module, the host must still work.
func (h *hostileHost) assertLivesOn(t *testing.T, operator string) {
	t.Helper()
	ctx := context.Background()
	backend, err := h.store.Backend(stateOptions(operator))
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Close()
	inst, err := h.well.Instantiate(ctx, hostileConfig(operator), backend)
	if err != nil {
		t.Fatalf("the host did not live on: a well-behaved instance fails: %v", err)
	}
	defer inst.Close(ctx)
	outs, err := inst.Process(ctx, hostileBatch())
	if err != nil {
		t.Fatalf("the host did not live on: a well-behaved batch fails: %v", err)
	}
	var counts []uint64
	for _, o := range outs {
		counts = append(counts, binary.LittleEndian.Uint64(o.Value))
	}
	if len(counts) != 3 || counts[0] != 1 || counts[1] != 1 || counts[2] != 2 {
		t.Fatalf("well-behaved outputs %v, want [1 1 2]", counts)
	}
	got := h.commitAndScan(t, backend, operator)
	if len(got) != 2 || binary.LittleEndian.Uint64(got["a"]["n"]) != 2 || binary.LittleEndian.Uint64(got["b"]["n"]) != 1 {
		t.Fatalf("well-behaved state %v, want a=2 b=1", got)
	}
}

func TestParseHostileTable(t *testing.T) {
	rows, err := ParseHostileTable(strings.NewReader(`
# comment
loop     process     timeout      -              ws_process  0   # trailing comment
bad_ptr  process     abi_misuse   BAD_POINTER    state_get   -1
init     instantiate init         GUEST_CONFIG   ws_init     -1
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0].Func != "ws_process" || rows[1].Code != abi.ErrBadPointer || rows[2].Record != -1 || rows[0].Line != 3 {
		t.Fatalf("rows %+v", rows)
	}
	if !errors.Is(rows[0].Kind, host.ErrTimeout) || rows[0].Code != abi.OK {
		t.Fatalf("row 0 %+v", rows[0])
	}
	for _, bad := range []string{
		"m process trap - ws_process",
		"m elsewhere trap - ws_process 0",
		"m process boom - ws_process 0",
		"m process trap NOPE ws_process 0",
		"m process trap - ws_process x",
		"m process trap - ws_process -2",
		"m process trap - - 0\nm process trap - - 0",
	} {
		if _, err := ParseHostileTable(strings.NewReader(bad)); !errors.Is(err, ErrHostileTable) {
			t.Errorf("%q: %v, want ErrHostileTable", bad, err)
		}
	}
}

func TestWatFlags(t *testing.T) {
	if got := watFlags([]byte(";; wat2wasm-flags: --no-check --enable-all\n(module)")); len(got) != 2 || got[0] != "--no-check" {
		t.Fatalf("flags %v", got)
	}
	if got := watFlags([]byte(";; a module\n;; wat2wasm-flags: --no-check\n(module)")); got != nil {
		t.Fatalf("a directive off the first line was used: %v", got)
	}
}
