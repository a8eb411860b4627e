package coordinator

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/protocol"
)

// blockingEffects holds every publication until release is closed or its
// context ends.
type blockingEffects struct {
	fakeEffects
	release chan struct{}
	started chan uint64
}

func (f *blockingEffects) PublishCheckpoint(ctx context.Context, id uint64) error {
	f.started <- id
	select {
	case <-f.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// With MaxUnpublished, a periodic checkpoint is announced while its
// publication still runs on the publisher's goroutine, and the loop keeps
// stepping; Close ends a publication in progress and waits for it.
func TestDriverPublishesBehindAndCloseEndsIt(t *testing.T) {
	fx := &blockingEffects{release: make(chan struct{}), started: make(chan uint64, 4)}
	clock := &protocol.ManualClock{T: time.Unix(1000, 0)}
	d, err := New(Config{Protocol: protocol.CoordinatorConfig{Sources: 1, Tasks: 1, Interval: time.Second, Timeout: time.Minute,
		MaxFailures: MaxFailuresInARow, OutageBudget: time.Minute, MaxUnpublished: 1, FirstID: 1, Where: "data/checkpoints", Clock: clock},
		Root: t.TempDir(), Retain: 3, Logger: hclog.NewNullLogger(), Effects: fx})
	if err != nil {
		t.Fatal(err)
	}
	var completed []uint64
	d.cfg.Completed = func(m checkpoint.Manifest) { completed = append(completed, m.ID) }
	clock.Advance(time.Second)
	if err := d.Step(context.Background(), protocol.Tick{}); err != nil {
		t.Fatal(err)
	}
	if err := d.Step(context.Background(), protocol.SourceReported{ID: 1, Position: 10}); err != nil {
		t.Fatal(err)
	}
	if err := d.Step(context.Background(), protocol.TaskAcked{ID: 1, Report: protocol.TaskReport{Positions: []uint64{10}}}); err != nil {
		t.Fatal(err)
	}
	if id := <-fx.started; id != 1 || len(completed) != 1 || completed[0] != 1 {
		t.Fatalf("publication of %d started, completed %v; want checkpoint 1 announced while it is published", id, completed)
	}
	// The next checkpoint runs meanwhile.
	clock.Advance(time.Second)
	if err := d.Step(context.Background(), protocol.Tick{}); err != nil {
		t.Fatal(err)
	}
	if id, _, ok := d.proto.InProgress(); !ok || id != 2 {
		t.Fatalf("checkpoint in progress %d (%v), want 2 while 1 is published", id, ok)
	}
	closed := make(chan struct{})
	go func() { d.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(time.Minute):
		t.Fatal("Close did not end the publication in progress")
	}
}
