package isolate_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/isolate"
	"github.com/wasmstream/wasmstream/internal/state"
)

var fullRange = state.KeyGroupRange{Start: 0, End: state.DefaultMaxParallelism}

// guest is testdata/policy.wasm compiled, with a backend to instantiate it on.
type guest struct {
	mod     *host.Module
	backend *state.Backend
}

func newGuest(t *testing.T, r state.KeyGroupRange) guest {
	t.Helper()
	ctx := context.Background()
	wasm, err := os.ReadFile("testdata/policy.wasm")
	if err != nil {
		t.Fatal(err)
	}
	rt, err := host.NewRuntime(ctx, host.RuntimeConfig{Engine: host.EngineInterpreter})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(ctx) })
	mod, err := rt.Compile(ctx, "policy", wasm)
	if err != nil {
		t.Fatal(err)
	}
	store, err := state.Open(t.TempDir(), state.Options{CacheSizeBytes: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	backend, err := store.Backend(state.BackendOptions{Operator: "policy", Range: r})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(backend.Close)
	return guest{mod: mod, backend: backend}
}

// instance instantiates the guest; a calm one ignores the "x" records' fault.
func (g guest) instance(ctx context.Context, calm bool) (*host.Instance, error) {
	cfg := host.InstanceConfig{Operator: "policy", Outputs: []string{"out"}}
	if calm {
		cfg.Config = []byte("calm")
	}
	return g.mod.Instantiate(ctx, cfg, g.backend)
}

// batch makes one record per value, keyed by its position.
func batch(values ...string) []host.Record {
	recs := make([]host.Record, len(values))
	for i, v := range values {
		recs[i] = host.Record{Key: []byte{'k', byte('0' + i)}, Value: []byte(v)}
	}
	return recs
}

// run is one batch under a Runner that counts what the policy did.
type run struct {
	res                 isolate.Result
	err                 error
	attempts, restarts  int
	onIsolate           []int
	outputRecs, outKeys []int
}

func runBatch(t *testing.T, g guest, renewCalm bool, recs []host.Record) run {
	t.Helper()
	ctx := context.Background()
	inst, err := g.instance(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	var got run
	r := isolate.Runner{
		Inst: inst,
		Renew: func(ctx context.Context) (*host.Instance, error) {
			got.restarts++
			return g.instance(ctx, renewCalm)
		},
		BeforeAttempt: func() { got.attempts++ },
		OnIsolate: func(_ context.Context, i int, _ *host.GuestError) error {
			got.onIsolate = append(got.onIsolate, i)
			return nil
		},
	}
	got.res, got.err = r.Run(ctx, recs)
	t.Cleanup(func() { r.Inst.Close(context.Background()) })
	for _, o := range got.res.Outputs {
		got.outputRecs = append(got.outputRecs, o.Record)
		got.outKeys = append(got.outKeys, int(o.Key[1]-'0'))
	}
	return got
}

func TestRun(t *testing.T) {
	tests := []struct {
		name      string
		values    []string
		renewCalm bool // the replacement instance ignores "x"
		isolated  []int
		outputs   []int // record index of each output
		attempts  int
		restarts  int
		wantErr   error
	}{
		{name: "success", values: []string{"o", "o", "o"}, outputs: []int{0, 1, 2}, attempts: 1},
		{name: "record failures keep the instance", values: []string{"o", "e", "o", "e"},
			isolated: []int{1, 3}, outputs: []int{0, 2}, attempts: 3},
		{name: "a trap replaces the instance", values: []string{"o", "t", "o"},
			isolated: []int{1}, outputs: []int{0, 2}, attempts: 2, restarts: 1},
		{name: "isolations map back to the batch", values: []string{"t", "e", "o", "t", "o"},
			isolated: []int{0, 1, 3}, outputs: []int{2, 4}, attempts: 4, restarts: 2},
		{name: "every record isolated", values: []string{"e", "e"}, isolated: []int{0, 1}, attempts: 2},
		{name: "a fault outside any record is retried once", values: []string{"x", "o"}, renewCalm: true,
			outputs: []int{0, 1}, attempts: 2, restarts: 1},
		{name: "a second fault outside any record stops", values: []string{"o", "x"},
			attempts: 2, restarts: 2, wantErr: isolate.ErrFaultOutsideRecord},
		{name: "isolated records before the stop are reported", values: []string{"e", "x"},
			isolated: []int{0}, attempts: 3, restarts: 2, wantErr: isolate.ErrFaultOutsideRecord},
		{name: "an empty batch does not run", values: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := batch(tt.values...)
			before := slices.Clone(recs)
			got := runBatch(t, newGuest(t, fullRange), tt.renewCalm, recs)
			if !errors.Is(got.err, tt.wantErr) {
				t.Fatalf("error %v, want %v", got.err, tt.wantErr)
			}
			var isolated []int
			for _, x := range got.res.Isolated {
				isolated = append(isolated, x.Index)
				if x.Err == nil || x.Err.Record < 0 {
					t.Errorf("isolated record %d with %v", x.Index, x.Err)
				}
			}
			if !slices.Equal(isolated, tt.isolated) || !slices.Equal(got.onIsolate, tt.isolated) {
				t.Errorf("isolated %v, OnIsolate saw %v, want %v", isolated, got.onIsolate, tt.isolated)
			}
			if !slices.Equal(got.outputRecs, tt.outputs) || !slices.Equal(got.outKeys, tt.outputs) {
				t.Errorf("outputs of records %v with keys of records %v, want %v", got.outputRecs, got.outKeys, tt.outputs)
			}
			if got.attempts != tt.attempts || got.restarts != tt.restarts {
				t.Errorf("%d attempts and %d restarts, want %d and %d", got.attempts, got.restarts, tt.attempts, tt.restarts)
			}
			for i := range recs {
				if string(recs[i].Key) != string(before[i].Key) {
					t.Fatalf("Run modified the caller's batch: %q at %d, was %q", recs[i].Key, i, before[i].Key)
				}
			}
		})
	}
}

// The guest's error stays reachable through ErrFaultOutsideRecord.
func TestFaultOutsideRecordWrapsGuestError(t *testing.T) {
	got := runBatch(t, newGuest(t, fullRange), false, batch("x"))
	var ge *host.GuestError
	if !errors.As(got.err, &ge) || ge.Record != -1 || !errors.Is(ge, host.ErrTrap) {
		t.Fatalf("got %v, want ErrFaultOutsideRecord wrapping a trap outside any record", got.err)
	}
}

// An error of OnIsolate stops the batch and is returned as is.
func TestOnIsolateErrorStops(t *testing.T) {
	g := newGuest(t, fullRange)
	ctx := context.Background()
	inst, err := g.instance(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close(ctx)
	errDeadLetter := errors.New("dead-letter subject unreachable")
	attempts := 0
	r := isolate.Runner{
		Inst:          inst,
		BeforeAttempt: func() { attempts++ },
		OnIsolate:     func(context.Context, int, *host.GuestError) error { return errDeadLetter },
	}
	res, err := r.Run(ctx, batch("o", "e", "o"))
	if err != errDeadLetter || attempts != 1 || len(res.Isolated) != 1 || res.Outputs != nil {
		t.Fatalf("error %v after %d attempts, result %+v; want the callback's error after 1", err, attempts, res)
	}
}

// A failed Renew is returned, and Inst is still the closed instance.
func TestRenewErrorStops(t *testing.T) {
	g := newGuest(t, fullRange)
	ctx := context.Background()
	inst, err := g.instance(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	errNoModule := errors.New("module gone")
	r := isolate.Runner{Inst: inst, Renew: func(context.Context) (*host.Instance, error) { return nil, errNoModule }}
	_, err = r.Run(ctx, batch("t"))
	if !errors.Is(err, errNoModule) || r.Inst != inst || !inst.Closed() {
		t.Fatalf("got %v with instance %p (closed %t), want the Renew error and the old instance %p", err, r.Inst, r.Inst.Closed(), inst)
	}
}

// A host failure is not the guest's fault: it is returned as is and no
// record is isolated. The backend owns key group 0 only and refuses a key
// of another group.
func TestHostFailureReturnedAsIs(t *testing.T) {
	g := newGuest(t, state.KeyGroupRange{Start: 0, End: 1})
	ctx := context.Background()
	inst, err := g.instance(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	r := isolate.Runner{Inst: inst, Renew: func(ctx context.Context) (*host.Instance, error) { return g.instance(ctx, false) }}
	defer func() { r.Inst.Close(ctx) }()
	key := []byte("k0")
	for state.KeyGroup(key, state.DefaultMaxParallelism) == 0 {
		key[1]++
	}
	res, err := r.Run(ctx, []host.Record{{Key: key, Value: []byte("o")}})
	if !errors.Is(err, state.ErrKeyOutOfRange) || errors.As(err, new(*host.GuestError)) || len(res.Isolated) != 0 {
		t.Fatalf("got %v, isolated %v; want the backend's ErrKeyOutOfRange and no isolation", err, res.Isolated)
	}
}

// CheckOutputs sees each attempt's outputs mapped to the caller's batch;
// a record it refuses is isolated like one the guest rejected (the
// instance is kept) and the rest of the batch runs again, until an attempt
// is accepted.
func TestCheckOutputsIsolatesRefusedRecords(t *testing.T) {
	g := newGuest(t, fullRange)
	ctx := context.Background()
	inst, err := g.instance(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close(ctx)
	attempts := 0
	var seen []string
	r := isolate.Runner{
		Inst:          inst,
		BeforeAttempt: func() { attempts++ },
		CheckOutputs: func(outs []host.Output) (int, string) {
			for _, o := range outs {
				if int(o.Key[1]-'0') != o.Record {
					t.Errorf("output of record %d has the key of record %d", o.Record, o.Key[1]-'0')
				}
				if o.Record == 2 || o.Record == 4 {
					seen = append(seen, string(o.Key))
					return o.Record, "too large"
				}
			}
			return -1, ""
		},
	}
	res, err := r.Run(ctx, batch("o", "e", "o", "o", "o"))
	if err != nil {
		t.Fatal(err)
	}
	var isolated, outputs []int
	for _, x := range res.Isolated {
		isolated = append(isolated, x.Index)
	}
	for _, o := range res.Outputs {
		outputs = append(outputs, o.Record)
	}
	if !slices.Equal(isolated, []int{1, 2, 4}) || !slices.Equal(outputs, []int{0, 3}) || attempts != 4 || r.Inst != inst || inst.Closed() {
		t.Fatalf("isolated %v, outputs %v, %d attempts, instance kept %v; want [1 2 4], [0 3], 4 attempts on the same instance",
			isolated, outputs, attempts, r.Inst == inst && !inst.Closed())
	}
	for _, x := range res.Isolated[1:] {
		if !errors.Is(x.Err, host.ErrOutputRefused) || x.Err.Detail != "too large" {
			t.Errorf("record %d isolated with %v, want ErrOutputRefused with the check's reason", x.Index, x.Err)
		}
	}
	if !slices.Equal(seen, []string{"k2", "k4"}) {
		t.Errorf("refused %v, want k2 then k4", seen)
	}
}

// A check that names a record outside the attempt is a bug reported as an
// error, not an accepted attempt.
func TestCheckOutputsBadIndexFails(t *testing.T) {
	g := newGuest(t, fullRange)
	ctx := context.Background()
	inst, err := g.instance(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close(ctx)
	r := isolate.Runner{Inst: inst, CheckOutputs: func([]host.Output) (int, string) { return 0, "refused twice" }}
	_, err = r.Run(ctx, batch("o", "e", "o"))
	if err == nil || !strings.Contains(err.Error(), "host blamed record") {
		t.Fatalf("got %v, want the bad index reported", err)
	}
}
