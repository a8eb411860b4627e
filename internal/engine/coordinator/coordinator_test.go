package coordinator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/protocol"
)

// fakeEffects records what the driver asked for; persistErr fails persists.
// With root set, a persist makes the checkpoint's directory there.
type fakeEffects struct {
	calls      []string
	persistErr error
	root       string
}

func (f *fakeEffects) InjectBarriers(req protocol.InjectBarriers) error {
	f.calls = append(f.calls, req.String())
	return nil
}
func (f *fakeEffects) CancelCheckpoint(id uint64) {
	f.calls = append(f.calls, fmt.Sprint("cancel ", id))
}
func (f *fakeEffects) PersistCheckpoint(_ context.Context, p protocol.Persist) (checkpoint.Manifest, error) {
	f.calls = append(f.calls, fmt.Sprint("persist ", p.ID))
	if f.root != "" && f.persistErr == nil {
		if err := os.MkdirAll(checkpoint.Dir(f.root, p.ID), 0o700); err != nil {
			return checkpoint.Manifest{}, err
		}
	}
	return checkpoint.Manifest{ID: p.ID}, f.persistErr
}
func (f *fakeEffects) PublishCheckpoint(_ context.Context, id uint64) error {
	f.calls = append(f.calls, fmt.Sprint("publish ", id))
	return nil
}
func (f *fakeEffects) AckSources(_ context.Context, m checkpoint.Manifest) {
	f.calls = append(f.calls, fmt.Sprint("ack-sources ", m.ID))
}
func (f *fakeEffects) MarkCleanStop(id uint64) error {
	f.calls = append(f.calls, fmt.Sprint("clean-stop ", id))
	return nil
}

func newDriver(t *testing.T, fx *fakeEffects, clock *protocol.ManualClock) *Driver {
	t.Helper()
	d, err := New(Config{Protocol: protocol.CoordinatorConfig{Sources: 1, Tasks: 1, Interval: -1, Timeout: time.Minute,
		MaxFailures: MaxFailuresInARow, OutageBudget: time.Minute, FirstID: 1, Where: "data/checkpoints", Clock: clock},
		Root: t.TempDir(), Retain: 3, Logger: hclog.NewNullLogger(), Effects: fx})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// collect runs checkpoint id's reports through the driver, and the outcome
// of the publication they start, as the pipeline's loop would.
func collect(t *testing.T, d *Driver, id uint64) error {
	t.Helper()
	if err := d.Step(context.Background(), protocol.SourceReported{ID: id, Position: 10}); err != nil {
		t.Fatal(err)
	}
	if err := d.Step(context.Background(), protocol.TaskAcked{ID: id, Report: protocol.TaskReport{Positions: []uint64{10}}}); err != nil {
		return err
	}
	return published(t, d)
}

// published steps the outcome of the publication in progress, if any.
func published(t *testing.T, d *Driver) error {
	t.Helper()
	for d.publisher.running {
		select {
		case ev := <-d.Published():
			if err := d.Step(context.Background(), ev); err != nil {
				return err
			}
		case <-time.After(time.Minute):
			t.Fatal("no outcome of the publication after a minute")
		}
	}
	return nil
}

// An on-demand trigger is answered after persist and publish, in that
// order; the final checkpoint marks the clean stop and finishes the run.
func TestDriverCompletesAndAnswers(t *testing.T) {
	fx := &fakeEffects{}
	d := newDriver(t, fx, &protocol.ManualClock{})
	answer := make(chan TriggerResult, 1)
	d.Wait(answer)
	if err := d.Step(context.Background(), protocol.Trigger{}); err != nil {
		t.Fatal(err)
	}
	if err := collect(t, d, 1); err != nil {
		t.Fatal(err)
	}
	if r := <-answer; r.ID != 1 || r.Error != "" {
		t.Fatalf("answer %+v", r)
	}
	if err := d.Step(context.Background(), protocol.Stop{}); err != nil {
		t.Fatal(err)
	}
	if err := collect(t, d, 2); err != nil || !d.Finished() {
		t.Fatalf("final checkpoint: %v, finished %v", err, d.Finished())
	}
	want := []string{"inject-barriers 1", "persist 1", "publish 1", "ack-sources 1",
		"inject-barriers 2 final", "persist 2", "publish 2", "ack-sources 2", "clean-stop 2"}
	if !slices.Equal(fx.calls, want) {
		t.Fatalf("effects %q, want %q", fx.calls, want)
	}
}

// A failed persist answers the trigger with the error; the third in a row
// stops the pipeline with an error naming the fix.
func TestDriverFailuresInARow(t *testing.T) {
	fx := &fakeEffects{persistErr: errors.New("no space left on device")}
	d := newDriver(t, fx, &protocol.ManualClock{})
	for id := uint64(1); id <= 3; id++ {
		answer := make(chan TriggerResult, 1)
		d.Wait(answer)
		if err := d.Step(context.Background(), protocol.Trigger{}); err != nil {
			t.Fatal(err)
		}
		err := collect(t, d, id)
		r := <-answer
		if !strings.Contains(r.Error, "no space left on device") {
			t.Fatalf("checkpoint %d answered %+v", id, r)
		}
		if (err != nil) != (id == 3) {
			t.Fatalf("checkpoint %d: step error %v", id, err)
		}
		if id == 3 && !strings.Contains(err.Error(), "3 checkpoints in a row failed") {
			t.Fatalf("the stop says %v", err)
		}
	}
}

// errUnreachable stands for an error natsio.IsOutage classifies as an
// outage (the driver knows nothing of NATS: the engine passes the
// classifier in).
var errUnreachable = errors.New("nats: server is disconnected")

// Persists that fail because NATS is unreachable are answered but not
// counted: five in a row do not stop the pipeline. Past the outage budget
// the stop names NATS and wraps protocol.ErrOutageBudget.
func TestDriverOutagesNotCounted(t *testing.T) {
	fx := &fakeEffects{persistErr: fmt.Errorf("waiting for output acknowledgements: %w", errUnreachable)}
	clock := &protocol.ManualClock{}
	d, err := New(Config{Protocol: protocol.CoordinatorConfig{Sources: 1, Tasks: 1, Interval: -1, Timeout: time.Minute,
		MaxFailures: MaxFailuresInARow, OutageBudget: 10 * time.Second, FirstID: 1, Where: "data/checkpoints",
		Server: "nats://db1:4222", Clock: clock},
		Root: t.TempDir(), Retain: 3, Logger: hclog.NewNullLogger(), Effects: fx,
		Outage: func(err error) bool { return errors.Is(err, errUnreachable) }})
	if err != nil {
		t.Fatal(err)
	}
	for id := uint64(1); id <= 6; id++ {
		answer := make(chan TriggerResult, 1)
		d.Wait(answer)
		if err := d.Step(context.Background(), protocol.Trigger{}); err != nil {
			t.Fatal(err)
		}
		err := collect(t, d, id)
		if r := <-answer; !strings.Contains(r.Error, "disconnected") {
			t.Fatalf("checkpoint %d answered %+v", id, r)
		}
		if last := id == 6; (err != nil) != last {
			t.Fatalf("checkpoint %d: step error %v", id, err)
		}
		if id == 6 && (!errors.Is(err, protocol.ErrOutageBudget) || !strings.Contains(err.Error(), "nats://db1:4222")) {
			t.Fatalf("the stop says %v, want the outage budget and the server", err)
		}
		clock.Advance(2 * time.Second) // checkpoint 6 starts 10s after checkpoint 1
	}
}

// An effect that reports the pipeline already failed is passed on as is,
// not counted as a failed checkpoint.
func TestDriverPassesStoppedOn(t *testing.T) {
	fx := &fakeEffects{persistErr: fmt.Errorf("flush: %w", ErrStopped)}
	d := newDriver(t, fx, &protocol.ManualClock{})
	if err := d.Step(context.Background(), protocol.Trigger{}); err != nil {
		t.Fatal(err)
	}
	if err := collect(t, d, 1); !errors.Is(err, ErrStopped) {
		t.Fatalf("got %v, want ErrStopped", err)
	}
}

// The timer follows the core's deadline on the driver's clock.
func TestDriverTimer(t *testing.T) {
	d := newDriver(t, &fakeEffects{}, &protocol.ManualClock{T: time.Now()})
	if d.Timer() != nil {
		t.Fatal("an on-demand coordinator with nothing in progress has no timer")
	}
	if err := d.Step(context.Background(), protocol.Trigger{}); err != nil {
		t.Fatal(err)
	}
	if d.Timer() == nil {
		t.Fatal("a checkpoint in progress must time out")
	}
}

// After each completed checkpoint the driver prunes the root with the
// restored checkpoint protected: a run that rolled back from 4 to 2 keeps
// 2 over the skipped 3 and 4 until it has written Retain checkpoints.
func TestDriverRetainKeepsTheRestoredCheckpoint(t *testing.T) {
	root := t.TempDir()
	for id := uint64(1); id <= 4; id++ {
		if err := os.MkdirAll(checkpoint.Dir(root, id), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	fx := &fakeEffects{root: root}
	d, err := New(Config{Protocol: protocol.CoordinatorConfig{Sources: 1, Tasks: 1, Interval: -1, Timeout: time.Minute,
		MaxFailures: MaxFailuresInARow, OutageBudget: time.Minute, FirstID: 5, Where: root, Clock: &protocol.ManualClock{}},
		Root: root, Retain: 2, Restored: 2, Logger: hclog.NewNullLogger(), Effects: fx})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range [][]uint64{{5, 2}, {6, 5}} {
		if err := d.Step(context.Background(), protocol.Trigger{}); err != nil {
			t.Fatal(err)
		}
		if err := collect(t, d, want[0]); err != nil {
			t.Fatal(err)
		}
		if left, err := checkpoint.List(root); err != nil || !slices.Equal(left, want) {
			t.Fatalf("after checkpoint %d: left %v, %v; want %v", want[0], left, err, want)
		}
	}
}
