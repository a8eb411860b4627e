package coordinator

import (
	"context"
	"errors"
	"testing"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/protocol"
)

// The Completed and Failed hooks (metrics) hear of every checkpoint's
// outcome exactly once: a completion with its manifest, a failure with
// whether it was only an outage.
func TestDriverReportsOutcomes(t *testing.T) {
	fx := &fakeEffects{}
	d := newDriver(t, fx, &protocol.ManualClock{})
	var completed []uint64
	var failed []bool
	d.cfg.Completed = func(m checkpoint.Manifest) { completed = append(completed, m.ID) }
	d.cfg.Failed = func(outage bool) { failed = append(failed, outage) }
	run := func(id uint64) {
		t.Helper()
		if err := d.Step(context.Background(), protocol.Trigger{}); err != nil {
			t.Fatal(err)
		}
		if err := collect(t, d, id); err != nil {
			t.Fatal(err)
		}
	}
	run(1)
	fx.persistErr = errors.New("no space left on device")
	run(2)
	fx.persistErr = nil
	run(3)
	if len(completed) != 2 || completed[0] != 1 || completed[1] != 3 {
		t.Errorf("completed %v, want [1 3]", completed)
	}
	if len(failed) != 1 || failed[0] {
		t.Errorf("failed %v, want one failure that is no outage", failed)
	}
}
