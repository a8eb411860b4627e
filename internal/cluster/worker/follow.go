package worker

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/internal/cluster/assign"
	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/lease"
	"github.com/wasmstream/wasmstream/internal/state"
)

// follower applies the coordinator's decisions on this worker: it runs
// the part the assignment gives it and passes triggers to it.
type follower struct {
	w   *worker
	cur *part
	// waiting is a trigger of an epoch newer than the part's, applied
	// once the assignment is read.
	waiting *trigger
	// retryAt delays the restart of a part that failed.
	retryAt time.Time
}

// follow reads the assignment (through the stream leader) every half
// second and whenever a trigger names a newer epoch, until ctx ends.
func (w *worker) follow(ctx context.Context) error {
	triggers := make(chan *nats.Msg, 64)
	tsub, err := w.conn.NC.ChanSubscribe(w.subj.trigger, triggers)
	if err != nil {
		return err
	}
	defer func() { _ = tsub.Unsubscribe() }()
	osub, err := w.conn.NC.Subscribe(w.subj.outcome, w.outcomes.onMessage)
	if err != nil {
		return err
	}
	defer func() { _ = osub.Unsubscribe() }()
	fsub, err := w.conn.NC.Subscribe(w.subj.forget, w.forgetObjects)
	if err != nil {
		return err
	}
	defer func() { _ = fsub.Unsubscribe() }()
	f := &follower{w: w}
	defer f.halt()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case m := <-triggers:
			f.onTrigger(m)
			continue
		case <-w.wake:
		case <-tick.C:
		}
		if err := f.settle(ctx); err != nil && ctx.Err() == nil {
			w.log.Warn("applying the assignment failed; retrying", "error", err)
		}
	}
}

func (f *follower) onTrigger(m *nats.Msg) {
	t, err := decode[trigger](m.Data, "checkpoint trigger")
	if err != nil {
		f.w.log.Warn("ignoring a trigger", "error", err)
		return
	}
	if f.cur != nil && f.cur.epoch.Load() == t.Assignment {
		f.cur.trigger(t)
		return
	}
	if f.cur == nil || t.Assignment > f.cur.epoch.Load() {
		f.waiting = &t
		select {
		case f.w.wake <- struct{}{}:
		default:
		}
	}
}

// settle makes the running part match the assignment in force.
func (f *follower) settle(ctx context.Context) error {
	if f.cur != nil {
		if done, err := f.cur.exited(); done {
			f.w.log.Error("tasks stopped; restarting them from the last cluster checkpoint", "error", err)
			f.cur, f.retryAt = nil, time.Now().Add(time.Second)
		}
	}
	sent := time.Now()
	a, err := ctlrec.ReadAssignment(ctx, f.w.bucket)
	if errors.Is(err, lease.ErrNotFound) {
		return nil // no coordinator decided yet
	}
	if err != nil {
		return err
	}
	applyErr := f.apply(ctx, a, sent.Add(f.w.window))
	if t := f.waiting; t != nil {
		switch {
		case f.cur != nil && f.cur.epoch.Load() == t.Assignment:
			f.cur.trigger(*t)
		case a.Epoch == t.Assignment && len(tasksOf(a, f.w.id)) > 0:
			f.w.decline(*t, notRunning(applyErr))
		}
	}
	f.waiting = nil
	return applyErr
}

// notRunning says why this worker's tasks are not running.
func notRunning(applyErr error) string {
	if applyErr != nil {
		return "its tasks failed to start: " + applyErr.Error()
	}
	return "its tasks are restarting after a failure"
}

// apply runs the tasks a gives this worker: a part whose tasks stay the
// same only takes the new epoch; any other change stops it and starts the
// new tasks from the last completed cluster checkpoint.
// A part that keeps its tasks may publish until confirmed (fence).
func (f *follower) apply(ctx context.Context, a assign.Assignment, confirmed time.Time) error {
	mine := tasksOf(a, f.w.id)
	if f.cur != nil {
		if sameRanges(rangesOf(f.cur.cfg, f.cur.tasks), rangesOf(atParallelism(f.w.cfg, a), mine)) {
			f.cur.epoch.Store(a.Epoch)
			f.cur.fence.confirm(confirmed)
			return nil
		}
		f.w.log.Info("assignment changed this worker's tasks; stopping them", "assignment", a.Epoch, "tasks", mine)
		f.halt()
	}
	if len(mine) == 0 || time.Now().Before(f.retryAt) {
		return nil
	}
	pt, err := f.w.startPart(ctx, a, mine, confirmed)
	if err != nil {
		f.retryAt = time.Now().Add(2 * time.Second)
		return err
	}
	f.cur = pt
	return nil
}

func (f *follower) halt() {
	if f.cur != nil {
		f.cur.halt()
		f.cur = nil
	}
}

// sameRanges reports whether two parts run the same key groups of every
// operator (a rescale changes the ranges, not always the indices).
func sameRanges(a, b map[string][]state.KeyGroupRange) bool {
	byStart := func(x, y state.KeyGroupRange) int { return x.Start - y.Start }
	return maps.EqualFunc(a, b, func(x, y []state.KeyGroupRange) bool {
		return slices.Equal(slices.SortedFunc(slices.Values(x), byStart), slices.SortedFunc(slices.Values(y), byStart))
	})
}
