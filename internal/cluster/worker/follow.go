package worker

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/internal/cluster/assign"
	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/lease"
	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// follower applies the coordinator's decisions on this worker: it runs
// the parts the assignment gives it and passes triggers to them.
type follower struct {
	w *worker
	// parts run the worker's tasks, each the tasks that started together;
	// all of them at the same assignment epoch.
	parts []*part
	// waiting is a trigger of an epoch newer than the parts', applied
	// once the assignment is read.
	waiting *trigger
	// retryAt delays the restart of a part that failed.
	retryAt time.Time
	// stored is when the server stored the assignment last read.
	stored time.Time
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
		err := f.settle(ctx)
		w.running.Store(int32(len(f.parts)))
		if err != nil && ctx.Err() == nil {
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
	f.w.outcomes.triggered(t.Checkpoint)
	epoch, running := f.epoch()
	if running && epoch == t.Assignment {
		f.triggerParts(t)
		return
	}
	if !running || t.Assignment > epoch {
		f.waiting = &t
		select {
		case f.w.wake <- struct{}{}:
		default:
		}
	}
}

// epoch is the assignment epoch the parts run; false when none runs.
func (f *follower) epoch() (uint64, bool) {
	if len(f.parts) == 0 {
		return 0, false
	}
	return f.parts[0].epoch.Load(), true
}

// triggerParts starts checkpoint t on every part; their shares make the
// worker's one ack.
func (f *follower) triggerParts(t trigger) {
	g := newAckGather(f.w, t, f.parts)
	for _, pt := range f.parts {
		pt.trigger(t, g)
	}
}

// settle makes the running parts match the assignment in force.
func (f *follower) settle(ctx context.Context) error {
	f.dropExited()
	sent := time.Now()
	a, stored, err := ctlrec.ReadAssignmentStored(ctx, f.w.bucket)
	if errors.Is(err, lease.ErrNotFound) {
		return nil // no coordinator decided yet
	}
	if err != nil {
		return err
	}
	f.stored = stored
	applyErr := f.apply(ctx, a, sent.Add(f.w.window))
	if t := f.waiting; t != nil {
		epoch, running := f.epoch()
		switch {
		case running && epoch == t.Assignment && applyErr == nil:
			f.triggerParts(*t)
		case a.Epoch == t.Assignment && len(tasksOf(a, f.w.id)) > 0:
			f.w.decline(*t, notRunning(applyErr))
		}
	}
	f.waiting = nil
	return applyErr
}

// dropExited forgets parts whose pipeline stopped by itself; apply starts
// their tasks again (from the last cluster checkpoint) after a second.
func (f *follower) dropExited() {
	live := f.parts[:0]
	for _, pt := range f.parts {
		if done, err := pt.exited(); done {
			f.w.log.Error("tasks stopped; restarting them from the last cluster checkpoint", "tasks", pt.tasksNow(), "error", err)
			pt.halt() // removes its data dir
			f.retryAt = time.Now().Add(time.Second)
			continue
		}
		live = append(live, pt)
	}
	f.parts = live
}

// notRunning says why this worker's tasks are not running.
func notRunning(applyErr error) string {
	if applyErr != nil {
		return "its tasks failed to start: " + applyErr.Error()
	}
	return "its tasks are restarting after a failure"
}

// maxParts bounds the parts of a worker. Each part's sources read every
// record (filter-on-read), so every part adds a read of the sources:
// past the bound, a change that gains tasks restarts all of the worker's
// tasks as one part instead.
const maxParts = 3

// apply runs the tasks a gives this worker (design ../../shared/cluster.md
// §5.5). A task keeps running where it runs when a leaves its operator's
// parallelism and its worker unchanged; tasks a takes away are released
// from their part (engine.ReleaseTasks), which goes on with the others,
// or stops when none is left (or when its tasks cannot be released: a
// transactional sink); the tasks a gives and no part runs start as a new
// part, restored from the last completed cluster checkpoint. Parts that
// keep tasks may publish until confirmed (fence).
func (f *follower) apply(ctx context.Context, a assign.Assignment, confirmed time.Time) error {
	want := atParallelism(f.w.cfg, a)
	mine := tasksOf(a, f.w.id)
	var kept []*part
	running := map[string][]int{}
	for _, pt := range f.parts {
		keep, drop := splitTasks(pt, want, mine)
		if len(keep) == 0 || !f.release(pt, a.Epoch, drop) {
			f.stopPart(pt, a.Epoch)
			continue
		}
		pt.epoch.Store(a.Epoch)
		pt.fence.confirm(confirmed)
		kept = append(kept, pt)
		for op, idxs := range keep {
			running[op] = append(running[op], idxs...)
		}
	}
	f.parts = kept
	gained := missingTasks(mine, running)
	if len(gained) == 0 || time.Now().Before(f.retryAt) {
		return nil
	}
	if len(f.parts) >= maxParts {
		f.w.log.Info("the worker runs the most parts it may; restarting all its tasks as one part", "assignment", a.Epoch, "parts", len(f.parts))
		f.halt()
		gained = mine
	}
	pt, err := f.w.startPart(ctx, a, gained, confirmed, f.stored)
	if err != nil {
		f.retryAt = time.Now().Add(2 * time.Second)
		return err
	}
	f.parts = append(f.parts, pt)
	return nil
}

// release hands the tasks drop of pt over; false when pt must stop instead.
func (f *follower) release(pt *part, epoch uint64, drop map[string][]int) bool {
	if len(drop) == 0 {
		return true
	}
	if err := pt.release(drop); err != nil {
		f.w.log.Info("tasks cannot be released from their running part; stopping it", "assignment", epoch, "tasks", drop, "reason", err)
		return false
	}
	f.w.log.Info("tasks released", "worker", f.w.id, "assignment", epoch, "tasks", drop, "kept", pt.tasksNow(), "part", filepath.Base(pt.dir))
	return true
}

func (f *follower) stopPart(pt *part, epoch uint64) {
	f.w.log.Info("assignment changed this worker's tasks; stopping a part", "assignment", epoch, "tasks", pt.tasksNow(), "part", filepath.Base(pt.dir))
	pt.halt()
}

func (f *follower) halt() {
	for _, pt := range f.parts {
		pt.halt()
	}
	f.parts = nil
}

// splitTasks divides pt's tasks into those the assignment (want, at its
// parallelism; mine, this worker's tasks in it) keeps here and those it
// takes away. A task is kept when its operator's parallelism is
// unchanged and it is still this worker's: its key groups are the same.
func splitTasks(pt *part, want *config.Pipeline, mine map[string][]int) (keep, drop map[string][]int) {
	keep, drop = map[string][]int{}, map[string][]int{}
	for op, idxs := range pt.tasksNow() {
		same := pt.cfg.Operator(op).Parallelism == want.Operator(op).Parallelism
		for _, i := range idxs {
			if same && slices.Contains(mine[op], i) {
				keep[op] = append(keep[op], i)
			} else {
				drop[op] = append(drop[op], i)
			}
		}
	}
	return keep, drop
}

// missingTasks are the tasks of mine that running does not hold.
func missingTasks(mine, running map[string][]int) map[string][]int {
	out := map[string][]int{}
	for op, idxs := range mine {
		for _, i := range idxs {
			if !slices.Contains(running[op], i) {
				out[op] = append(out[op], i)
			}
		}
	}
	return out
}
