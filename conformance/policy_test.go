package conformance

import (
	"context"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/state"
)

// isolatorFor instantiates mod with a backend of a fresh store and wraps it.
func isolatorFor(t *testing.T, mod *host.Module) *Isolator {
	t.Helper()
	backend, err := tempStore(t).Backend(stateOptions("policy"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(backend.Close)
	cfg := hostileConfig("policy")
	inst, err := mod.Instantiate(context.Background(), cfg, backend)
	if err != nil {
		t.Fatal(err)
	}
	iso := NewIsolator(inst, func(ctx context.Context) (*host.Instance, error) { return mod.Instantiate(ctx, cfg, backend) })
	t.Cleanup(func() { iso.Close(context.Background()) })
	return iso
}

// A successful batch's outputs are copied and keep their record indices.
func TestIsolatorSuccess(t *testing.T) {
	iso := isolatorFor(t, compileWat(t, wellBehaved))
	res, err := iso.Process(context.Background(), hostileBatch())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Isolated) != 0 || len(res.Outputs) != 3 || res.Outputs[2].Record != 2 {
		t.Fatalf("result %+v", res)
	}
	first := res.Outputs[0].Value
	if _, err := iso.Process(context.Background(), hostileBatch()); err != nil {
		t.Fatal(err)
	}
	if binary.LittleEndian.Uint64(first) != 1 {
		t.Fatal("outputs were not copied out of the instance's arena")
	}
}

// The record_failed module fails whichever record is second (or the last
// one): the policy isolates them one at a time, maps every index back to
// the original batch and keeps the instance.
func TestIsolatorRecordFailures(t *testing.T) {
	iso := isolatorFor(t, compileWat(t, "record_failed"))
	res, err := iso.Process(context.Background(), hostileBatch())
	if err != nil {
		t.Fatal(err)
	}
	var order []int
	for _, x := range res.Isolated {
		order = append(order, x.Index)
		if !errors.Is(x.Err, host.ErrRecordFailed) {
			t.Errorf("isolated %d with %v", x.Index, x.Err)
		}
	}
	if len(order) != 3 || order[0] != 1 || order[1] != 2 || order[2] != 0 {
		t.Fatalf("isolation order %v, want [1 2 0]", order)
	}
	if iso.Restarts() != 0 {
		t.Fatalf("%d restarts after record failures, want 0", iso.Restarts())
	}
}

// trap_in_process traps on the second record: the policy replaces the
// instance each time. With one record left it traps after the end of the
// batch, outside any record: one retry, then ErrFaultOutsideRecord.
func TestIsolatorTrapsAndFaultOutsideRecord(t *testing.T) {
	iso := isolatorFor(t, compileWat(t, "trap_in_process"))
	res, err := iso.Process(context.Background(), hostileBatch())
	if !errors.Is(err, ErrFaultOutsideRecord) {
		t.Fatalf("got %v, want ErrFaultOutsideRecord", err)
	}
	if len(res.Isolated) != 2 || res.Isolated[0].Index != 1 || res.Isolated[1].Index != 2 {
		t.Fatalf("isolated %+v, want records 1 then 2", res.Isolated)
	}
	if iso.Restarts() != 4 {
		t.Fatalf("%d restarts, want 4 (two isolations, a fault and its retry)", iso.Restarts())
	}
}

// A host failure is not the guest's fault: it is returned as is. Here the
// backend owns key group 0 only and refuses the key of another group.
func TestIsolatorReturnsHostFailures(t *testing.T) {
	mod := compileWat(t, wellBehaved)
	backend, err := tempStore(t).Backend(state.BackendOptions{Operator: "policy", Range: state.KeyGroupRange{Start: 0, End: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Close()
	inst, err := mod.Instantiate(context.Background(), hostileConfig("policy"), backend)
	if err != nil {
		t.Fatal(err)
	}
	iso := NewIsolator(inst, nil)
	defer iso.Close(context.Background())
	key := []byte("k0")
	for state.KeyGroup(key, state.DefaultMaxParallelism) == 0 {
		key[1]++
	}
	_, err = iso.Process(context.Background(), []host.Record{{Key: key, Value: []byte("v")}})
	if !errors.Is(err, state.ErrKeyOutOfRange) || errors.As(err, new(*host.GuestError)) {
		t.Fatalf("got %v, want the backend's ErrKeyOutOfRange", err)
	}
}
