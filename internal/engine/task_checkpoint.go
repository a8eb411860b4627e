package engine

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/wasmstream/wasmstream/internal/protocol"
)

// taskCheckpointing is a task's side of the checkpoint protocol: the
// protocol core's task, the chunks it holds, the outcome of its last
// snapshot, and the coordinator's cancellations.
type taskCheckpointing struct {
	proto *protocol.Task
	held  [][]taskItem // per input, chunks held behind its barrier, FIFO
	last  protocol.TaskReport
	// cancelled is the newest checkpoint the coordinator gave up; wake
	// tells the task goroutine to look.
	cancelled atomic.Uint64
	seen      uint64
	wake      chan struct{}
	// flight is the snapshot whose state is being flushed (task_flush.go);
	// nil when none.
	flight *taskFlight
}

func newTaskCheckpointing(inputs int, opts CheckpointOptions) (*taskCheckpointing, error) {
	proto, err := protocol.NewTask(protocol.TaskConfig{Inputs: inputs, Mode: opts.Mode, AlignmentTimeout: opts.AlignmentTimeout, Clock: opts.Clock})
	if err != nil {
		return nil, err
	}
	return &taskCheckpointing{proto: proto, held: make([][]taskItem, inputs), wake: make(chan struct{}, 1)}, nil
}

// alignmentWait is how long the task may wait for input before the
// protocol must be ticked, or -1 when no alignment can time out.
func (c *taskCheckpointing) alignmentWait(now time.Time) time.Duration {
	d, ok := c.proto.Deadline()
	if !ok {
		return -1
	}
	return max(d.Sub(now), 0) + time.Millisecond
}

// cancel records that the coordinator gave up checkpoint id; the task
// goroutine acts on it at its next wake-up.
func (c *taskCheckpointing) cancel(id uint64) {
	for {
		cur := c.cancelled.Load()
		if id <= cur || c.cancelled.CompareAndSwap(cur, id) {
			break
		}
	}
	select {
	case c.wake <- struct{}{}:
	default: // a wake-up is pending already
	}
}

func (c *taskCheckpointing) popHeld(input int) taskItem {
	item := c.held[input][0]
	c.held[input][0] = taskItem{}
	c.held[input] = c.held[input][1:]
	return item
}

// applyCancel hands a new cancellation to the protocol.
func (t *task) applyCancel(ctx context.Context) error {
	id := t.ck.cancelled.Load()
	if id <= t.ck.seen {
		return nil
	}
	t.ck.seen = id
	return t.apply(ctx, t.ck.proto.Cancel(id))
}

func (t *task) onBarrier(ctx context.Context, b *protocol.Barrier) error {
	actions, err := t.ck.proto.Barrier(*b)
	if err != nil {
		return fmt.Errorf("operator %q task %d: %w", t.op.cfg.Name, t.index, err)
	}
	return t.apply(ctx, actions)
}

// apply performs the protocol's actions in order.
func (t *task) apply(ctx context.Context, actions []protocol.TaskAction) error {
	for _, a := range actions {
		switch a := a.(type) {
		case protocol.Snapshot:
			if err := t.snapshot(ctx, a); err != nil {
				return err
			}
		case protocol.Ack:
			if f := t.ck.flight; f != nil && f.id == a.ID {
				f.acked = true // acknowledged once its flush is committed
				continue
			}
			t.op.p.report(protocol.TaskAcked{ID: a.ID, Task: t.global, Report: t.ck.last})
		case protocol.Release:
			for _, in := range a.Inputs {
				if err := t.processItem(ctx, t.ck.popHeld(in)); err != nil {
					return err
				}
			}
		case protocol.Abort:
			t.logger.Debug("checkpoint given up", "checkpoint", a.ID)
		case protocol.Ignored:
			t.logger.Debug("stale barrier ignored", "checkpoint", a.ID, "input", a.Input)
		case protocol.Forward:
			// A single stage has no downstream tasks (TaskConfig.Downstream
			// is 0): the protocol never asks.
		}
	}
	return nil
}

// snapshot cuts the task's state as its part of the checkpoint: the flush
// of the cut then runs between guest batches and its commit on another
// goroutine (task_flush.go); the task acknowledges once it is committed.
// The store changes only by such commits, so after every task acknowledged
// checkpoint N (and before N+1 is triggered) the store holds exactly the
// cut; the coordinator then takes the Pebble checkpoint. A flight of the
// previous checkpoint still going is finished first. An error that leaves
// the state unflushed fails the task: its cache no longer matches the store.
// An operator that other operators read publishes its barrier markers to
// them here, after every output of the records in the cut.
func (t *task) snapshot(ctx context.Context, s protocol.Snapshot) error {
	if err := t.landFlush(); err != nil {
		return err
	}
	if t.op.writesExchanges() {
		if err := t.publishMarkers(ctx, s.ID); err != nil {
			return err
		}
	}
	start := time.Now()
	r := protocol.TaskReport{Positions: s.Positions, Unaligned: s.Unaligned, Alignment: s.Alignment}
	f, err := t.beginFlush(s.ID)
	if err != nil {
		r.Err, r.Pause = err, time.Since(start)
		t.ck.last = r
		if t.backend.Flushing() {
			return err // cut, and the cut cannot be committed
		}
		return nil // nothing was cut: the state still matches the store
	}
	f.report, f.pause = r, time.Since(start)
	t.ck.flight = f
	return nil
}

// flushState applies the task's writes since its last snapshot, and its
// transactional outputs as the outbox of checkpoint id, to the store, in
// one go, unsynced: the coordinator's Pebble checkpoint flushes the WAL.
func (t *task) flushState(id uint64) error {
	if err := t.landFlush(); err != nil {
		return err
	}
	f, err := t.beginFlush(id)
	if err != nil {
		return err
	}
	t.ck.flight = f
	return t.landFlush()
}
