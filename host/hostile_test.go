package host

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/abi"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newTestRuntime(t testing.TB, engine Engine, pages uint32) *Runtime {
	t.Helper()
	ctx := context.Background()
	rt, err := NewRuntime(ctx, RuntimeConfig{MemoryLimitPages: pages, Engine: engine})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(ctx) })
	return rt
}

func compileFixture(t testing.TB, rt *Runtime, name string) *Module {
	t.Helper()
	m, err := rt.Compile(context.Background(), "hostile", readFixture(t, name))
	if err != nil {
		t.Fatalf("compile %s: %v", name, err)
	}
	return m
}

func hostileInstance(t testing.TB, m *Module, mode byte, st KeyedState, logger hclog.Logger) (*Instance, error) {
	return m.Instantiate(context.Background(), InstanceConfig{
		Operator:     "hostile",
		Config:       []byte{mode},
		Outputs:      []string{"out"},
		BatchTimeout: 300 * time.Millisecond,
		Logger:       logger,
	}, st)
}

func records(keys ...string) []Record {
	recs := make([]Record, len(keys))
	for i, k := range keys {
		recs[i] = Record{Key: []byte(k), Value: []byte("v"), EventTime: int64(i)}
	}
	return recs
}

func counter(t *testing.T, st *memState, key string) uint64 {
	t.Helper()
	v, ok := st.data[key+"/n"]
	if !ok {
		return 0
	}
	return binary.LittleEndian.Uint64(v)
}

var engines = []Engine{EngineCompiler, EngineInterpreter}

func TestCounterCommitsStateAndOutputs(t *testing.T) {
	for _, engine := range engines {
		t.Run(string(engine), func(t *testing.T) {
			m := compileFixture(t, newTestRuntime(t, engine, 64), "hostile.wasm")
			st := newMemState()
			inst, err := hostileInstance(t, m, 0, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			outs, err := inst.Process(context.Background(), records("a", "b", "a"))
			if err != nil {
				t.Fatal(err)
			}
			var got []uint64
			for _, o := range outs {
				got = append(got, binary.LittleEndian.Uint64(o.Value))
			}
			if want := []uint64{1, 1, 2}; !equalU64(got, want) {
				t.Fatalf("outputs %v, want %v", got, want)
			}
			if outs[2].Record != 2 || outs[2].Output != 0 || outs[2].Seq != 0 {
				t.Fatalf("output attribution %+v", outs[2])
			}
			if counter(t, st, "a") != 2 || counter(t, st, "b") != 1 {
				t.Fatalf("state %v", st.data)
			}
		})
	}
}

func equalU64(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Every hostile behaviour ends in a typed error, and the same runtime then
// serves a well-behaved instance: the host lives on.
func TestHostileGuestsGiveTypedErrors(t *testing.T) {
	cases := []misuseCase{
		{"state_get bad name pointer", 1, false, ErrABIMisuse, abi.ErrBadPointer, abi.FuncStateGet, 0},
		{"state_get bad out pointer", 2, false, ErrABIMisuse, abi.ErrBadPointer, abi.FuncStateGet, 0},
		{"state_put bad value pointer", 3, false, ErrABIMisuse, abi.ErrBadPointer, abi.FuncStatePut, 0},
		{"state_delete bad name pointer", 4, false, ErrABIMisuse, abi.ErrBadPointer, abi.FuncStateDelete, 0},
		{"emit bad output pointer", 5, false, ErrABIMisuse, abi.ErrBadPointer, abi.FuncEmit, 0},
		{"emit bad key pointer", 6, false, ErrABIMisuse, abi.ErrBadPointer, abi.FuncEmit, 0},
		{"emit bad value pointer", 7, false, ErrABIMisuse, abi.ErrBadPointer, abi.FuncEmit, 0},
		{"emit bad header pointer", 8, false, ErrABIMisuse, abi.ErrBadPointer, abi.FuncEmit, 0},
		{"log bad message pointer", 9, false, ErrABIMisuse, abi.ErrBadPointer, abi.FuncLog, 0},
		{"length past end of memory", 15, false, ErrABIMisuse, abi.ErrBadPointer, abi.FuncStatePut, 0},
		{"state before record_next", 10, false, ErrABIMisuse, abi.ErrNoRecord, abi.FuncStateGet, -1},
		{"state after the batch ended", 18, false, ErrABIMisuse, abi.ErrNoRecord, abi.FuncStateDelete, -1},
		{"emit during init", 11, true, ErrABIMisuse, abi.ErrNoRecord, abi.FuncEmit, -1},
		{"alloc returns pointer outside memory", 12, false, ErrABIMisuse, abi.ErrBadPointer, abi.ExportAlloc, -1},
		{"host call from inside alloc", 14, false, ErrABIMisuse, abi.ErrReentrant, abi.FuncLog, -1},
		{"negative length is over the limit", 13, false, ErrTrap, abi.ErrTooLarge, abi.ExportProcess, 0},
		{"emit to unknown output", 16, false, ErrTrap, abi.ErrUnknownOutput, abi.ExportProcess, 0},
		{"malformed header list", 17, false, ErrTrap, abi.ErrBadArgument, abi.ExportProcess, 0},
		{"infinite loop", 30, false, ErrTimeout, abi.OK, abi.ExportProcess, 0},
		{"memory grow bomb", 31, false, ErrMemoryLimit, abi.OK, abi.ExportProcess, 0},
		{"trap", 32, false, ErrTrap, abi.OK, abi.ExportProcess, 0},
		{"trap in init", 33, true, ErrInit, abi.OK, abi.ExportInit, -1},
		{"init rejects config", 34, true, ErrInit, abi.ErrGuestConfig, abi.ExportInit, -1},
		{"returns before visiting every record", 36, false, ErrABIMisuse, abi.ErrNoRecord, abi.ExportProcess, -1},
	}
	runMisuseCases(t, "hostile.wasm", cases, func(t *testing.T, m *Module, mode byte, st KeyedState) (*Instance, error) {
		return hostileInstance(t, m, mode, st, nil)
	})
}

// misuseCase is a guest behaviour (the fixture's mode) and the typed error
// it must end in.
type misuseCase struct {
	name      string
	mode      byte
	atInit    bool
	kind      error
	code      abi.Code
	fn        string
	recordIdx int
}

// runMisuseCases runs each case on every engine: the instance fails with
// the case's typed error, is discarded, leaves no state writes, and the
// module then serves a well-behaved instance (the host lives on).
func runMisuseCases(t *testing.T, fixture string, cases []misuseCase, instantiate func(t *testing.T, m *Module, mode byte, st KeyedState) (*Instance, error)) {
	t.Helper()
	for _, engine := range engines {
		m := compileFixture(t, newTestRuntime(t, engine, 64), fixture)
		for _, tc := range cases {
			t.Run(string(engine)+"/"+tc.name, func(t *testing.T) {
				st := newMemState()
				inst, err := instantiate(t, m, tc.mode, st)
				if !tc.atInit {
					if err != nil {
						t.Fatalf("instantiate: %v", err)
					}
					_, err = inst.Process(context.Background(), records("a", "b", "c"))
					if !inst.Closed() {
						t.Error("instance not discarded after a fault")
					}
				}
				checkGuestError(t, err, tc.kind, tc.code, tc.fn, tc.recordIdx)
				if len(st.data) != 0 {
					t.Errorf("state writes survived a failed batch: %v", st.data)
				}
				assertHostLivesOn(t, m)
			})
		}
	}
}

func checkGuestError(t *testing.T, err error, kind error, code abi.Code, fn string, record int) {
	t.Helper()
	var ge *GuestError
	if !errors.As(err, &ge) {
		t.Fatalf("error %v (%T) is not a *GuestError", err, err)
	}
	if !errors.Is(err, kind) {
		t.Errorf("kind: got %v, want %v (%v)", ge.Kind, kind, err)
	}
	if ge.Code != code {
		t.Errorf("code: got %v, want %v (%v)", ge.Code, code, err)
	}
	if ge.Func != fn {
		t.Errorf("func: got %q, want %q (%v)", ge.Func, fn, err)
	}
	if ge.Record != record {
		t.Errorf("record: got %d, want %d (%v)", ge.Record, record, err)
	}
	if !strings.Contains(err.Error(), `operator "hostile"`) {
		t.Errorf("message does not name the operator: %v", err)
	}
}

func assertHostLivesOn(t *testing.T, m *Module) {
	t.Helper()
	st := newMemState()
	inst, err := hostileInstance(t, m, 0, st, nil)
	if err != nil {
		t.Fatalf("a fresh instance after the fault: %v", err)
	}
	defer inst.Close(context.Background())
	if _, err := inst.Process(context.Background(), records("x")); err != nil {
		t.Fatalf("a fresh instance after the fault: %v", err)
	}
	if counter(t, st, "x") != 1 {
		t.Fatal("fresh instance did not count")
	}
}

func TestTrapRollsBackTheWholeBatch(t *testing.T) {
	m := compileFixture(t, newTestRuntime(t, EngineCompiler, 64), "hostile.wasm")
	st := newMemState()
	st.data["a/n"] = binary.LittleEndian.AppendUint64(nil, 41)
	inst, err := hostileInstance(t, m, 20, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = inst.Process(context.Background(), records("a", "b", "c", "d"))
	checkGuestError(t, err, ErrTrap, abi.OK, abi.ExportProcess, 2)
	if counter(t, st, "a") != 41 || counter(t, st, "b") != 0 {
		t.Fatalf("records 0 and 1 left writes behind: %v", st.data)
	}
}

func TestRecordFailureKeepsInstance(t *testing.T) {
	m := compileFixture(t, newTestRuntime(t, EngineCompiler, 64), "hostile.wasm")
	st := newMemState()
	inst, err := hostileInstance(t, m, 21, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = inst.Process(context.Background(), records("a", "b", "c"))
	checkGuestError(t, err, ErrRecordFailed, abi.ErrGuestRecord, abi.ExportProcess, 1)
	if inst.Closed() {
		t.Fatal("a record failure must not discard the instance")
	}
	if len(st.data) != 0 {
		t.Fatalf("state survived: %v", st.data)
	}
	// The engine re-runs the batch without the failed record.
	if _, err := inst.Process(context.Background(), records("a")); err != nil {
		t.Fatal(err)
	}
}

func TestGuestLogsReachHostLog(t *testing.T) {
	var buf bytes.Buffer
	logger := hclog.New(&hclog.LoggerOptions{Output: &buf, Level: hclog.Trace})
	m := compileFixture(t, newTestRuntime(t, EngineCompiler, 64), "hostile.wasm")
	inst, err := hostileInstance(t, m, 35, newMemState(), logger)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := inst.Process(context.Background(), records("a")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "hello from the guest") || !strings.Contains(buf.String(), "record=0") {
		t.Fatalf("log output: %q", buf.String())
	}
}

func TestHostStorageFailureIsNotBlamedOnGuest(t *testing.T) {
	m := compileFixture(t, newTestRuntime(t, EngineCompiler, 64), "hostile.wasm")
	inst, err := hostileInstance(t, m, 0, newMemState(), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = inst.Process(context.Background(), records("ok", "forbidden"))
	if !errors.Is(err, errForbiddenKey) {
		t.Fatalf("got %v, want the state backend's error", err)
	}
	var ge *GuestError
	if errors.As(err, &ge) {
		t.Fatalf("host failure reported as guest error: %v", err)
	}
}

func TestInvalidModulesAreRejectedAtCompile(t *testing.T) {
	rt := newTestRuntime(t, EngineCompiler, 64)
	cases := []struct {
		name  string
		wasm  []byte
		kind  error
		parts []string
	}{
		{"not wasm", []byte("#!/bin/sh\necho hi\n"), ErrInvalidModule, []string{"invalid WebAssembly module"}},
		{"truncated", readFixture(t, "hostile.wasm")[:100], ErrInvalidModule, nil},
		{"wrong ABI version", readFixture(t, "version2.wasm"), ErrABIVersion, []string{"ABI v2", "v1"}},
		{"missing exports", readFixture(t, "noexports.wasm"), ErrMissingExport, []string{"ws_process(i32, i32) -> (i32) is not exported", "ws_init has signature (i32) -> (i32)"}},
		{"unknown imports", readFixture(t, "badimport.wasm"), ErrUnknownImport, []string{"wasmstream.state_scan", "wasmstream.state_get(i32, i32)"}},
		{"WASI command module", readFixture(t, "command.wasm"), ErrMissingExport, []string{"WASI command module", goReactorBuild}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := rt.Compile(context.Background(), "bad", tc.wasm)
			if !errors.Is(err, tc.kind) {
				t.Fatalf("got %v, want %v", err, tc.kind)
			}
			for _, p := range tc.parts {
				if !strings.Contains(err.Error(), p) {
					t.Errorf("message %q lacks %q", err, p)
				}
			}
		})
	}
}

// Guest code that runs during validation (start section, _initialize) is
// under a deadline too: a loop there cannot hang the host.
func TestLoopDuringValidationTimesOut(t *testing.T) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, RuntimeConfig{ValidationTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	for _, name := range []string{"startloop.wasm", "initloop.wasm"} {
		_, err := rt.Compile(ctx, "looper", readFixture(t, name))
		if !errors.Is(err, ErrTimeout) {
			t.Errorf("%s: got %v, want ErrTimeout", name, err)
		}
	}
}

// The committed .wasm fixtures must be what wat2wasm makes of the .wat
// sources. CI installs wabt; elsewhere the check needs it too.
func TestFixturesMatchSources(t *testing.T) {
	if _, err := exec.LookPath("wat2wasm"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("wat2wasm not found: CI must install wabt (scripts/install-toolchains.sh)")
		}
		t.Skip("wat2wasm not installed (apt-get install wabt); fixtures not re-checked")
	}
	sources, _ := filepath.Glob("testdata/*.wat")
	for _, src := range sources {
		out := filepath.Join(t.TempDir(), "x.wasm")
		if b, err := exec.Command("wat2wasm", src, "-o", out).CombinedOutput(); err != nil {
			t.Fatalf("wat2wasm %s: %v\n%s", src, err, b)
		}
		want, _ := os.ReadFile(out)
		got, _ := os.ReadFile(strings.TrimSuffix(src, ".wat") + ".wasm")
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./host/", src)
		}
	}
}
