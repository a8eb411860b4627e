package coordinator

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/internal/protocol"
)

// demand hands the driver a numbered demand as the pipeline's loop does
// and returns its answer channel.
func demand(t *testing.T, d *Driver, id uint64) chan TriggerResult {
	t.Helper()
	answer := make(chan TriggerResult, 1)
	if ev := d.Demanded(Demand{ID: id, Answer: answer}); ev != nil {
		if err := d.Step(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	return answer
}

// A cluster's newer checkpoint, asked for while an older one still waits
// for reports, gives the older one up: its demand is answered with the
// failure, the newer one's demand waits for its own result, which it gets
// when that checkpoint completes. An older id is refused at once.
func TestDriverNewerDemandSupersedes(t *testing.T) {
	fx := &fakeEffects{}
	d := newDriver(t, fx, &protocol.ManualClock{})
	old := demand(t, d, 4)
	joined := make(chan TriggerResult, 1)
	d.Wait(joined) // an id-less waiter joins checkpoint 4
	newer := demand(t, d, 6)
	for name, ch := range map[string]chan TriggerResult{"checkpoint 4's demand": old, "the id-less waiter": joined} {
		select {
		case r := <-ch:
			if !strings.Contains(r.Error, "checkpoint 4 failed: superseded by checkpoint 6") {
				t.Fatalf("%s answered %+v", name, r)
			}
		default:
			t.Fatalf("%s was not answered when 6 superseded 4", name)
		}
	}
	select {
	case r := <-newer:
		t.Fatalf("checkpoint 6's demand answered before it ended: %+v", r)
	default:
	}
	if r := <-demand(t, d, 5); !strings.Contains(r.Error, "checkpoint 5 asked for while 6 is in progress") {
		t.Fatalf("an older demand answered %+v", r)
	}
	if err := collect(t, d, 6); err != nil {
		t.Fatal(err)
	}
	if r := <-newer; r.ID != 6 || r.Error != "" {
		t.Fatalf("checkpoint 6's demand answered %+v", r)
	}
	want := []string{"inject-barriers 4", "cancel 4", "inject-barriers 6", "persist 6", "publish 6", "ack-sources 6"}
	if !slices.Equal(fx.calls, want) {
		t.Fatalf("effects %q, want %q", fx.calls, want)
	}
}
