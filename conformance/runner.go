package conformance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/state"
)

// Runner runs cases against compiled modules with real state: each case
// gets its own operator name (the case name) in one shared Pebble store, so
// cases cannot see each other's state.
type Runner struct {
	Store *state.Store
	// Log receives the host's and the guest's log lines; nil drops them.
	Log io.Writer
}

// fullRange is every key group: one task owns all keys.
var fullRange = state.KeyGroupRange{Start: 0, End: state.DefaultMaxParallelism}

// stateOptions: one task owns every key group of operator.
func stateOptions(operator string) state.BackendOptions {
	return state.BackendOptions{Operator: operator, Range: fullRange}
}

// Run runs case c on mod and returns what happened, in the shape of the
// case's expectation. An error means the run itself could not complete (a
// host failure, a fault outside any record twice): that is a failure of
// the implementation or the host, never an expected result.
func (r *Runner) Run(ctx context.Context, mod *host.Module, c *Case) (*Expect, error) {
	return r.RunUpgrade(ctx, mod, nil, c)
}

// RunUpgrade is Run for a case that may upgrade: after the case's batches
// on mod, its Upgrade migrates the state with next and runs the upgrade's
// batches on next.
func (r *Runner) RunUpgrade(ctx context.Context, mod, next *host.Module, c *Case) (*Expect, error) {
	got := &Expect{Outputs: []Output{}, DeadLetters: []DeadLetter{}, State: State{}}
	if err := r.runModule(ctx, mod, c, c.Config, 0, len(c.Batches), got, &got.Declarations); err != nil || got.InitError != nil {
		return got, err
	}
	if c.Upgrade != nil {
		if err := r.upgrade(ctx, next, c, got); err != nil {
			return got, err
		}
	}
	return got, r.scan(c.Name, got.State)
}

// runModule runs batches [from, to) of c on a new instance of mod with the
// given config, recording its declarations into declared and its results
// into got. Each run gets its own backend, closed afterwards, as each
// module of an upgrade gets its own tasks.
func (r *Runner) runModule(ctx context.Context, mod *host.Module, c *Case, config []byte, from, to int, got *Expect, declared *[]Declaration) error {
	now := c.ClockAt(from)
	clock := func() time.Time { return now }
	opts := stateOptions(c.Name)
	opts.Clock = func() int64 { return now.UnixNano() }
	backend, err := r.Store.Backend(opts)
	if err != nil {
		return err
	}
	defer backend.Close()
	cfg := host.InstanceConfig{Operator: c.Name, Config: config, Outputs: c.OutputNames(), Logger: r.logger(c.Name), Clock: clock}
	inst, err := mod.Instantiate(ctx, cfg, backend)
	if err != nil {
		return initError(got, err)
	}
	iso := NewIsolator(inst, func(ctx context.Context) (*host.Instance, error) { return mod.Instantiate(ctx, cfg, backend) })
	defer func() { iso.Close(ctx) }()
	if err := applyDeclarations(inst, backend, declared); err != nil {
		return err
	}
	for b := from; b < to; b++ {
		now = c.ClockAt(b)
		if err := r.runBatch(ctx, iso, backend, c, b, got); err != nil {
			return fmt.Errorf("batch %d: %w", b, err)
		}
	}
	return nil
}

// applyDeclarations records the module's state declarations and gives the
// backend their TTLs, as the engine does (without config state blocks).
func applyDeclarations(inst *host.Instance, backend *state.Backend, declared *[]Declaration) error {
	ttls := map[string]state.TTL{}
	for _, d := range inst.Declarations() {
		*declared = append(*declared, Declaration{Name: Bytes(d.Name), Version: d.Version, TTLMillis: d.TTLMillis, Flags: d.Flags})
		if t, ok := state.DeclaredTTL(d.TTLMillis, d.Flags); ok {
			ttls[d.Name] = t
		}
	}
	return backend.SetTTL(ttls)
}

// initError records a typed instantiation failure as the result; any other
// error is returned.
func initError(got *Expect, err error) error {
	var ge *host.GuestError
	if !errors.As(err, &ge) {
		return fmt.Errorf("instantiate: %w", err)
	}
	got.InitError = &InitError{Kind: KindName(ge.Kind), Code: CodeName(ge.Code)}
	return nil
}

// runBatch runs batch b under the policy, records its outputs and dead
// letters, and commits the backend's writes to Pebble, as a checkpoint
// after every batch would.
func (r *Runner) runBatch(ctx context.Context, iso *Isolator, backend *state.Backend, c *Case, b int, got *Expect) error {
	res, err := iso.Process(ctx, c.HostRecords(b))
	if err != nil {
		return err
	}
	for _, x := range res.Isolated {
		got.DeadLetters = append(got.DeadLetters, DeadLetter{Batch: b, Record: x.Index, Kind: KindName(x.Err.Kind), Reason: x.Err.Detail})
	}
	names := c.OutputNames()
	for _, o := range res.Outputs {
		hdrs, err := decodeHeaders(o.Headers)
		if err != nil {
			return err
		}
		got.Outputs = append(got.Outputs, Output{Batch: b, Record: o.Record, Output: names[o.Output], Key: o.Key, Value: o.Value, Headers: hdrs})
	}
	pb := r.Store.NewBatch()
	if _, err := backend.FlushTo(pb); err != nil {
		pb.Close()
		return err
	}
	return r.Store.Commit(pb)
}

// scan reads the committed state of operator into s.
func (r *Runner) scan(operator string, s State) error {
	return r.Store.Scan(operator, fullRange, func(_ int, name, key, value []byte) error {
		s.Set(key, name, value)
		return nil
	})
}

func (r *Runner) logger(name string) hclog.Logger {
	if r.Log == nil {
		return hclog.NewNullLogger()
	}
	return hclog.New(&hclog.LoggerOptions{Name: name, Output: r.Log, Level: hclog.Trace, DisableTime: true})
}

// decodeHeaders turns an ABI header list into pairs; the host validated it.
func decodeHeaders(b []byte) ([]Header, error) {
	var hs []Header
	hr := abi.NewHeaderReader(b)
	for {
		n, v, more, err := hr.Next()
		if err != nil {
			return nil, fmt.Errorf("emitted headers: %w", err)
		}
		if !more {
			return hs, nil
		}
		hs = append(hs, Header{Name: append(Bytes(nil), n...), Value: append(Bytes(nil), v...)})
	}
}
