package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/checkpoint"
)

// taskCheckpointing is a task's side of the barrier protocol: the aligner,
// the chunks it holds, and how far each input has been processed.
type taskCheckpointing struct {
	aligner *checkpoint.Aligner
	timeout time.Duration // alignment timeout; 0 = none
	// covered[i]: every record of input i up to this sequence that was routed
	// to the task has been processed.
	covered []uint64
	held    [][]taskItem // per input, chunks held behind its barrier, FIFO

	// The checkpoint whose barriers are arriving.
	id           uint64
	ckpt         *pendingCheckpoint
	firstBarrier time.Time
	arrived      []bool
	barrierAt    []uint64 // position of each arrived barrier
	overtook     []bool   // the arrived barrier overtook queued records
	report       taskReport
}

func newTaskCheckpointing(inputs int, opts CheckpointOptions) (taskCheckpointing, error) {
	a, err := checkpoint.NewAligner(checkpoint.Config{Inputs: inputs, Mode: opts.Mode, AlignmentTimeout: opts.AlignmentTimeout})
	if err != nil {
		return taskCheckpointing{}, err
	}
	return taskCheckpointing{aligner: a, timeout: opts.AlignmentTimeout,
		covered: make([]uint64, inputs), held: make([][]taskItem, inputs),
		arrived: make([]bool, inputs), barrierAt: make([]uint64, inputs), overtook: make([]bool, inputs)}, nil
}

// alignmentWait is how long the task may wait for input before the aligner
// must be ticked, or -1 when no alignment can time out.
func (c *taskCheckpointing) alignmentWait() time.Duration {
	if c.timeout == 0 {
		return -1
	}
	if _, active := c.aligner.InProgress(); !active || c.report.inputs != nil {
		return -1
	}
	return max(c.timeout-time.Since(c.firstBarrier), 0) + time.Millisecond
}

func (c *taskCheckpointing) hold(item taskItem) {
	c.held[item.input] = append(c.held[item.input], item)
}

func (c *taskCheckpointing) popHeld(input int) taskItem {
	item := c.held[input][0]
	c.held[input][0] = taskItem{}
	c.held[input] = c.held[input][1:]
	return item
}

// begin starts tracking checkpoint b.id on its first barrier at this task.
func (c *taskCheckpointing) begin(b *barrier) {
	c.id, c.ckpt, c.firstBarrier = b.id, b.ckpt, time.Now()
	clear(c.arrived)
	clear(c.overtook)
	c.report = taskReport{}
}

func (t *task) onBarrier(ctx context.Context, b *barrier) error {
	effects, err := t.ck.aligner.Barrier(b.input, b.id)
	if err != nil {
		return fmt.Errorf("operator %q task %d: %w", t.op.cfg.Name, t.index, err)
	}
	if len(effects) == 1 {
		if ig, ok := effects[0].(checkpoint.Ignored); ok {
			t.logger.Debug("stale barrier ignored", "checkpoint", ig.ID, "input", ig.Input)
			return nil
		}
	}
	if b.id != t.ck.id {
		t.ck.begin(b)
	}
	t.ck.arrived[b.input] = true
	t.ck.barrierAt[b.input] = b.position
	t.ck.overtook[b.input] = b.overtaking
	return t.apply(ctx, effects)
}

// apply performs the aligner's effects in order.
func (t *task) apply(ctx context.Context, effects []checkpoint.Effect) error {
	for _, e := range effects {
		switch e := e.(type) {
		case checkpoint.Snapshot:
			t.snapshot()
			if t.ck.report.unaligned {
				// The snapshot records how far each input is in it, and
				// the records of late inputs are replayed from JetStream
				// on restore: the task's part is done now, without waiting
				// for the late barriers (they will be ignored or superseded).
				t.ck.ckpt.taskDone(t, t.ck.report)
			}
		case checkpoint.Release:
			for _, in := range e.Inputs {
				if err := t.processItem(ctx, t.ck.popHeld(in)); err != nil {
					return err
				}
			}
		case checkpoint.Complete:
			if !t.ck.report.unaligned {
				t.ck.ckpt.taskDone(t, t.ck.report)
			}
		case checkpoint.Abort:
			t.logger.Debug("checkpoint abandoned by a newer one", "checkpoint", e.ID)
		case checkpoint.Forward:
			// Outputs leave through the shared sink, which the coordinator
			// flushes before it completes the checkpoint: nothing to forward.
		}
	}
	return nil
}

// snapshot flushes the task's state into the store and records how far
// each input is in it. The store changes only by such flushes, so after every
// task flushed checkpoint N (and before N+1 is triggered) the store holds
// exactly the cut; the coordinator then takes the Pebble checkpoint.
func (t *task) snapshot() {
	start := time.Now()
	c := &t.ck
	r := taskReport{inputs: map[string]uint64{}, alignment: start.Sub(c.firstBarrier)}
	for i, name := range t.op.cfg.Inputs {
		// An in-band barrier follows exactly the records before it. An
		// overtaking one may have passed queued records (covered below
		// its position) or, picked after a later chunk, be behind it
		// (covered above): either way covered is what the state holds,
		// and resume points and skip tables handle both directions.
		pos := c.covered[i]
		switch {
		case c.arrived[i] && !c.overtook[i]:
			pos = c.barrierAt[i]
		case c.arrived[i] && pos == c.barrierAt[i]:
		default:
			r.unaligned = true
		}
		r.inputs[name] = pos
	}
	r.err = t.flushState(c.id)
	r.pause = time.Since(start)
	c.report = r
}

// flushState applies the task's writes since its last snapshot, and its
// transactional outputs as the outbox of checkpoint id, to the store,
// unsynced: the coordinator's Pebble checkpoint flushes the WAL.
func (t *task) flushState(id uint64) error {
	b := t.op.p.store.NewBatch()
	defer b.Close()
	if _, err := t.backend.FlushTo(b); err != nil {
		return fmt.Errorf("operator %q task %d: snapshot: %w", t.op.cfg.Name, t.index, err)
	}
	if err := t.outbox.flushTo(b, id, t.op.cfg.Name, t.index); err != nil {
		return fmt.Errorf("operator %q task %d: snapshot: %w", t.op.cfg.Name, t.index, err)
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		return fmt.Errorf("operator %q task %d: snapshot: %w", t.op.cfg.Name, t.index, err)
	}
	return nil
}
