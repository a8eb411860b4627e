package engine

import (
	"fmt"
	"math"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/internal/protocol"
	"github.com/wasmstream/wasmstream/internal/state"
)

// A task's snapshot does not write its dirty state while processing
// stops (internal/state RATIONALE.md "Incremental flush"). The Snapshot
// action only cuts (state.Backend.BeginFlush, O(1)) and writes the small
// outbox; then the task encodes the cut flushStepEntries entries at a time
// between chunks and while idle, and once all are encoded hands them to a
// goroutine that commits them. The task acknowledges the checkpoint when
// the commit is done, back on its own goroutine. A barrier, a
// synchronous flush (Exec) or the end of the task while a flight is going
// finishes it at once, as does a cache grown to twice its capacity (nothing
// is evicted during a flight).
//
// TaskReport.Pause is the longest single stop of processing the snapshot
// caused: the cut, one step, or a forced finish.

// flushStepEntries is how many entries a step encodes: well under a
// millisecond of work.
const flushStepEntries = 2048

// taskFlight is a snapshot of the task being flushed.
type taskFlight struct {
	id     uint64
	report protocol.TaskReport
	acked  bool          // the protocol's Ack came: report it once committed
	outbox *pebble.Batch // the transactional outputs of checkpoint id
	done   chan error    // the commit's outcome; nil until every entry is encoded
	pause  time.Duration
}

// beginFlush cuts the state and stages the outbox of checkpoint id.
func (t *task) beginFlush(id uint64) (*taskFlight, error) {
	if err := t.backend.BeginFlush(); err != nil {
		return nil, fmt.Errorf("operator %q task %d: snapshot: %w", t.op.cfg.Name, t.index, err)
	}
	f := &taskFlight{id: id, outbox: t.op.p.store.NewBatch()}
	if err := t.outbox.flushTo(f.outbox, id, t.op.cfg.Name, t.index); err != nil {
		// The cut has begun (the backend is Flushing): the caller fails
		// the task, whose cache no longer matches what the store will get.
		f.outbox.Close()
		return nil, fmt.Errorf("operator %q task %d: snapshot: %w", t.op.cfg.Name, t.index, err)
	}
	return f, nil
}

// stepFlush encodes one step of the flight, and starts its commit once
// every entry is encoded. It reports whether more steps are wanted.
func (t *task) stepFlush() (more bool, err error) {
	f := t.ck.flight
	if f == nil || f.done != nil {
		return false, nil
	}
	if t.backend.FlushOverfull() {
		return false, t.landFlush()
	}
	start := time.Now()
	done, err := t.backend.FlushStep(flushStepEntries)
	if err == nil && done {
		err = t.startCommit(f)
	}
	f.pause = max(f.pause, time.Since(start))
	if err != nil {
		return false, t.flightDone(f, err)
	}
	return !done, nil
}

// startCommit hands the encoded flight to a goroutine that commits it.
func (t *task) startCommit(f *taskFlight) error {
	fl, err := t.backend.Flush()
	if err != nil {
		return err
	}
	f.done = make(chan error, 1)
	db, outbox := t.op.p.store.DB(), f.outbox
	f.outbox = nil
	go func() { f.done <- commitFlight(db, fl, outbox) }()
	return nil
}

// commitFlight commits a flush and its outbox as one batch, unsynced: the
// coordinator's Pebble checkpoint flushes the WAL.
func commitFlight(db *pebble.DB, fl *state.Flush, outbox *pebble.Batch) error {
	defer outbox.Close()
	b := db.NewBatchWithSize(fl.Len() + outbox.Len())
	defer b.Close()
	if err := fl.ApplyTo(b); err != nil {
		return err
	}
	if err := b.Apply(outbox, nil); err != nil {
		return err
	}
	return b.Commit(pebble.NoSync)
}

// committed is the channel of the flight's commit outcome, nil (never
// ready) while none is running.
func (t *task) committed() <-chan error {
	if f := t.ck.flight; f != nil {
		return f.done
	}
	return nil
}

// pollFlush lands the flight if its commit is done, without waiting.
func (t *task) pollFlush() error {
	select {
	case err := <-t.committed():
		return t.flightDone(t.ck.flight, err)
	default:
		return nil
	}
}

// landFlush finishes the flight now: encodes the rest, commits, waits and
// acknowledges. Without a flight it does nothing.
func (t *task) landFlush() error {
	f := t.ck.flight
	if f == nil {
		return nil
	}
	start := time.Now()
	var err error
	if f.done == nil {
		if _, err = t.backend.FlushStep(math.MaxInt); err == nil {
			err = t.startCommit(f)
		}
	}
	if err == nil {
		err = <-f.done
	}
	f.pause = max(f.pause, time.Since(start))
	return t.flightDone(f, err)
}

// flightDone ends flight f with its outcome and acknowledges its checkpoint
// if the protocol did. A failed flush fails the task.
func (t *task) flightDone(f *taskFlight, err error) error {
	t.ck.flight = nil
	if f.outbox != nil {
		f.outbox.Close()
	}
	if err != nil {
		err = fmt.Errorf("operator %q task %d: snapshot: %w", t.op.cfg.Name, t.index, err)
	} else {
		t.backend.EndFlush()
	}
	f.report.Err, f.report.Pause = err, f.pause
	t.ck.last = f.report
	if f.acked {
		t.op.p.report(protocol.TaskAcked{ID: f.id, Task: t.global, Report: f.report})
	}
	return err
}
