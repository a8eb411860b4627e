package engine

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/isolate"
	"github.com/wasmstream/wasmstream/internal/protocol"
	"github.com/wasmstream/wasmstream/internal/state"
)

// task is one parallel instance of an operator: its own wazero instance and
// the state backend of its key-group range. One goroutine drives it.
type task struct {
	op      *operator
	index   int
	backend *state.Backend
	inst    *host.Instance
	in      chan taskItem
	prio    chan taskItem  // overtaking barriers (unaligned mode)
	queries chan liveQuery // live state queries (query.go); nil when not served
	logger  hclog.Logger

	hostRecs []host.Record
	hdrBuf   []byte
	prepared []preparedOutput // the accepted attempt's outputs, built for their sinks (payload.go)

	clock  *batchClock // processing time of state TTLs, read per batch
	outbox taskOutbox  // transactional outputs since the last snapshot
	ck     *taskCheckpointing
	skip   *protocol.SkipTable // records a restored unaligned snapshot already holds; nil when none
	global int                 // the task's number among all tasks of the pipeline (its reports)

	// released: the part handed the task over (ReleaseTasks); it skips
	// records and only passes barriers.
	released atomic.Bool

	processed atomic.Uint64
	emitted   atomic.Uint64
	restarts  atomic.Uint64

	// State gauges, published by sweep for metrics (the backend belongs to
	// the task goroutine).
	idleTimer        *time.Timer
	stateExpired     atomic.Uint64
	stateLiveEntries atomic.Int64
	stateLiveBytes   atomic.Int64
	sweepPasses      atomic.Uint64
	metrics          *taskMetrics // nil without an Observer (observe_metrics.go)
}

// taskItem is a chunk of records of one input, or a barrier.
type taskItem struct {
	records []inputRecord
	input   int    // the operator input of records
	upTo    uint64 // the source had routed every record up to this sequence
	barrier *protocol.Barrier
}

func (t *task) run(ctx context.Context) (err error) {
	// A snapshot still being flushed is finished (and acknowledged) before
	// the task ends: the final checkpoint waits for it, and the store must
	// not be closed under its commit.
	defer func() {
		if lerr := t.landFlush(); err == nil {
			err = lerr
		}
	}()
	for {
		item, ok, err := t.next(ctx)
		if err != nil || !ok {
			return err
		}
		if item.barrier != nil {
			err = t.onBarrier(ctx, item.barrier)
		} else {
			err = t.onChunk(ctx, item)
		}
		if err == nil {
			_, err = t.stepFlush()
		}
		if err != nil {
			return err
		}
	}
}

// next waits for the next item; while a barrier alignment can time out it
// also wakes up to tick the protocol, and it acts on the coordinator's
// cancellations.
func (t *task) next(ctx context.Context) (taskItem, bool, error) {
	for {
		select {
		case item := <-t.prio: // an overtaking barrier goes first
			return item, true, nil
		default:
		}
		if err := t.applyCancel(ctx); err != nil {
			return taskItem{}, false, err
		}
		t.answerWaitingQueries()
		if err := t.pollFlush(); err != nil {
			return taskItem{}, false, err
		}
		if item, ok, got, err := t.flushWhileIdle(); got || err != nil {
			return item, ok, err
		}
		timeout, stopTimer := t.timeout()
		select {
		case item := <-t.prio:
			stopTimer()
			return item, true, nil
		case item, ok := <-t.in:
			stopTimer()
			return item, ok, nil
		case <-t.ck.wake:
			stopTimer()
		case q := <-t.queries:
			stopTimer()
			t.answerQuery(q)
		case err := <-t.committed():
			stopTimer()
			if err := t.flightDone(t.ck.flight, err); err != nil {
				return taskItem{}, false, err
			}
		case <-timeout:
			if err := t.onTimer(ctx); err != nil {
				return taskItem{}, false, err
			}
		}
	}
}

// flushWhileIdle encodes the flight step by step while no input waits,
// and returns the first item that arrives (got) meanwhile.
func (t *task) flushWhileIdle() (item taskItem, ok, got bool, err error) {
	for {
		select {
		case item := <-t.prio:
			return item, true, true, nil
		case item, ok := <-t.in:
			return item, ok, true, nil
		case q := <-t.queries:
			t.answerQuery(q)
		default:
		}
		more, err := t.stepFlush()
		if err != nil || !more {
			return taskItem{}, false, false, err
		}
	}
}

// timeout is the timer next waits on: the alignment timeout while one
// can expire, else the idle sweep (nil without TTLs).
func (t *task) timeout() (<-chan time.Time, func()) {
	wait := t.ck.alignmentWait(t.op.p.opts.Checkpoint.Clock.Now())
	if wait < 0 {
		return t.idleSweepTimer(), func() {}
	}
	timer := time.NewTimer(wait)
	return timer.C, func() { timer.Stop() }
}

// onTimer ticks the protocol (an alignment may have timed out), or sweeps
// expired state when the task is idle.
func (t *task) onTimer(ctx context.Context) error {
	if _, aligning := t.ck.proto.Deadline(); aligning {
		return t.apply(ctx, t.ck.proto.Tick())
	}
	return t.sweep(idleSweepBudget / sweepPerRecord)
}

// onChunk processes a chunk, or holds it while its input is aligned.
func (t *task) onChunk(ctx context.Context, item taskItem) error {
	disp, err := t.ck.proto.Chunk(item.input)
	if err != nil {
		return fmt.Errorf("operator %q task %d: %w", t.op.cfg.Name, t.index, err)
	}
	if disp == protocol.Hold {
		t.ck.held[item.input] = append(t.ck.held[item.input], item)
		return nil
	}
	return t.processItem(ctx, item)
}

func (t *task) processItem(ctx context.Context, item taskItem) error {
	recs := item.records
	if t.released.Load() {
		recs = nil // the task's new owner replays them
	}
	if t.skip != nil {
		recs = t.filterReplayed(recs)
	}
	if err := t.processChunk(ctx, recs); err != nil {
		return err
	}
	if err := t.ck.proto.Processed(item.input, item.upTo); err != nil {
		return fmt.Errorf("operator %q task %d: %w", t.op.cfg.Name, t.index, err)
	}
	return t.sweep(len(recs))
}

// processChunk feeds a chunk to the guest in batches of the operator's size.
func (t *task) processChunk(ctx context.Context, recs []inputRecord) error {
	size := t.op.cfg.Limits.BatchSize
	for start := 0; start < len(recs); start += size {
		end := min(start+size, len(recs))
		began := t.metrics.start()
		if err := t.processBatch(ctx, recs[start:end]); err != nil {
			return err
		}
		t.batchDone(began)
	}
	return nil
}

// processBatch runs a batch under the failure policy (internal/isolate): a
// record that makes the guest fail, or that has an output its sink cannot
// publish (prepareOutputs), is isolated to the dead-letter subject and the
// rest of the batch runs again (the failed attempt's state writes and
// outputs were discarded).
func (t *task) processBatch(ctx context.Context, recs []inputRecord) error {
	recs = t.op.p.skipDeadLettered(t.op, recs)
	var deadLetterErr error
	t.resetPrepared()
	r := isolate.Runner{
		Inst:          t.inst,
		Renew:         t.renewInstance,
		BeforeAttempt: t.clock.tick,
		OnIsolate: func(ctx context.Context, i int, ge *host.GuestError) error {
			deadLetterErr = t.deadLetter(ctx, &recs[i], ge)
			return deadLetterErr
		},
		CheckOutputs: func(outs []host.Output) (int, string) { return t.prepareOutputs(recs, outs) },
	}
	called := t.metrics.start()
	res, err := r.Run(ctx, t.toHost(recs))
	t.metrics.guestDone(called)
	t.inst = r.Inst
	var ge *host.GuestError
	switch {
	case err == nil:
		t.processed.Add(uint64(len(recs) - len(res.Isolated)))
		return t.publish(ctx)
	case deadLetterErr != nil:
		return deadLetterErr
	case errors.Is(err, isolate.ErrFaultOutsideRecord) && errors.As(err, &ge):
		return fmt.Errorf("operator %q task %d fails outside any record, twice in a row; fix the operator: %w", t.op.cfg.Name, t.index, ge)
	}
	return fmt.Errorf("operator %q task %d: %w", t.op.cfg.Name, t.index, err)
}

func (t *task) toHost(recs []inputRecord) []host.Record {
	t.hostRecs, t.hdrBuf = t.hostRecs[:0], t.hdrBuf[:0]
	for i := range recs {
		var hr host.Record
		hr, t.hdrBuf = toHostRecord(&recs[i], t.hdrBuf)
		t.hostRecs = append(t.hostRecs, hr)
	}
	return t.hostRecs
}

// publish sends the accepted outputs (prepareOutputs) to their sinks, or
// stages those of transactional sinks for the next snapshot.
func (t *task) publish(ctx context.Context) error {
	if len(t.prepared) > 0 {
		if err := t.op.p.gate(); err != nil {
			return fmt.Errorf("operator %q: %w", t.op.cfg.Name, err)
		}
	}
	for i := range t.prepared {
		out := &t.prepared[i]
		if out.sink != nil && out.sink.cfg.Mode == config.ModeTransactional && t.op.p.exec == nil {
			t.outbox.stage(out.msg)
			continue
		}
		if err := t.op.p.deliver(ctx, out.msg, out.origin); err != nil {
			return fmt.Errorf("operator %q: publish to %s: %w", t.op.cfg.Name, out.destination(), err)
		}
	}
	t.emitted.Add(uint64(len(t.prepared)))
	t.resetPrepared()
	return nil
}

func (t *task) deadLetter(ctx context.Context, r *inputRecord, ge *host.GuestError) error {
	return t.op.p.countDeadLetter(t.op, guestReason(ge), t.op.p.deadLetter(ctx, t.op, t.op.p.sources[r.source], r.msg, ge.Error()))
}

// renewInstance replaces an instance a fault closed (isolate.Runner.Renew).
func (t *task) renewInstance(ctx context.Context) (*host.Instance, error) {
	t.restarts.Add(1)
	return t.op.newInstance(ctx, t.backend, t.logger)
}
