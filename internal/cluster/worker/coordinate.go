package worker

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/internal/cluster/assign"
	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/lease"
)

// coordinator is the lease holder's work: it keeps an assignment of every
// task to a live worker and runs the cluster checkpoints. Every decision
// is a fenced write under its lease (ctlrec), so a coordinator that lost
// the lease cannot change anything.
type coordinator struct {
	w    *worker
	l    *lease.Lease
	acks chan *nats.Msg
	// declines are the workers' declines (wire.go decline).
	declines chan *nats.Msg
	// seen is the last membership view and since when it is unchanged:
	// reassignment waits for cluster.stabilization of the same view.
	seen    []string
	since   time.Time
	lastEnd time.Time // end of the last checkpoint round
	lastGC  time.Time
	// lastCompleted is the last checkpoint this coordinator completed.
	lastCompleted uint64
}

// coordinate acts as coordinator under l until ctx ends or l is lost.
func (w *worker) coordinate(ctx context.Context, l *lease.Lease) error {
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	go keepLease(ctx, l, stop)
	c := &coordinator{w: w, l: l, acks: make(chan *nats.Msg, 1024), declines: make(chan *nats.Msg, 1024), lastEnd: time.Now()}
	sub, err := w.conn.NC.ChanSubscribe(w.subj.ack, c.acks)
	if err != nil {
		return err
	}
	defer func() { _ = sub.Unsubscribe() }()
	dsub, err := w.conn.NC.ChanSubscribe(w.subj.decline, c.declines)
	if err != nil {
		return err
	}
	defer func() { _ = dsub.Unsubscribe() }()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case m := <-c.acks:
			c.refuse(m, "no checkpoint in progress")
			continue
		case <-tick.C:
		}
		a, err := c.settleAssignment(ctx)
		if err != nil {
			if errors.Is(err, lease.ErrLost) {
				return err
			}
			w.log.Warn("assignment not settled; retrying", "error", err)
			continue
		}
		if a == nil || time.Since(c.lastEnd) < c.interval() || !c.allAlive(*a) {
			continue
		}
		err = c.round(ctx, *a, false)
		c.lastEnd = time.Now()
		if errors.Is(err, lease.ErrLost) {
			return err
		}
		if err != nil && ctx.Err() == nil {
			w.log.Warn("cluster checkpoint failed; the next one retries", "error", err)
		}
		if err == nil && time.Since(c.lastGC) >= gcInterval {
			c.lastGC = time.Now()
			if err := c.collectGarbage(ctx, c.lastCompleted); err != nil && ctx.Err() == nil {
				w.log.Warn("deleting unreferenced state objects failed; the next collection retries", "error", err)
			}
		}
	}
}

// interval is the time between cluster checkpoints.
func (c *coordinator) interval() time.Duration {
	if iv := c.w.cfg.Checkpoint.Interval; iv > 0 {
		return iv
	}
	return 5 * time.Second
}

// allAlive reports whether every worker with tasks in a is alive: a
// checkpoint cannot complete without each of them.
func (c *coordinator) allAlive(a assign.Assignment) bool {
	alive := c.w.view.View().Alive
	for _, o := range a.Operators {
		for _, t := range o.Tasks {
			if !slices.Contains(alive, t.Worker) {
				return false
			}
		}
	}
	return true
}

// settleAssignment returns the assignment in force, writing a new one
// when the live workers differ from its workers and the membership has
// been stable for cluster.stabilization; nil before the first.
func (c *coordinator) settleAssignment(ctx context.Context) (*assign.Assignment, error) {
	var prev *assign.Assignment
	a, err := ctlrec.ReadAssignment(ctx, c.w.bucket)
	switch {
	case err == nil:
		prev = &a
	case !errors.Is(err, lease.ErrNotFound):
		return nil, err
	}
	// Leaving workers are alive (they take part in the handover
	// checkpoint) but are given no task.
	view := c.w.view.View()
	alive := view.Staying()
	if !slices.Equal(alive, c.seen) {
		before := c.seen
		c.seen, c.since = alive, time.Now()
		if before != nil && onlyLeaving(before, alive, view.Leaving) {
			// A worker that says it leaves is no flapping member: its
			// tasks move without the stabilization delay.
			c.since = time.Time{}
		}
	}
	if len(alive) == 0 || time.Since(c.since) < c.w.cfg.Cluster.Stabilization {
		return prev, nil
	}
	scale, scaling := c.readScale(ctx)
	restore, err := latestCompleted(ctx, c.w.bucket)
	if err != nil {
		return prev, err
	}
	ops := c.operators(prev, scale, scaling)
	next, moves, err := assign.Plan(prev, ops, alive, assign.Stamp{Generation: c.l.Generation(), Restore: restore})
	if err != nil {
		return prev, err
	}
	if prev != nil && next.Epoch == prev.Epoch {
		c.scaled(ctx, scaling)
		return prev, nil
	}
	if prev != nil && c.allAlive(*prev) {
		if n := c.handover(ctx, *prev); n > restore {
			restore = n
			if next, moves, err = assign.Plan(prev, ops, alive, assign.Stamp{Generation: c.l.Generation(), Restore: restore}); err != nil {
				return prev, err
			}
		}
	}
	if err := ctlrec.WriteAssignment(ctx, c.l, next); err != nil {
		return prev, err
	}
	c.scaled(ctx, scaling)
	c.w.log.Info("assignment written", "epoch", next.Epoch, "generation", next.Generation, "workers", alive,
		"moved_tasks", len(moves), "restore_from", restore)
	return &next, nil
}

// onlyLeaving reports whether now differs from before only by workers
// that said they are leaving.
func onlyLeaving(before, now, leaving []string) bool {
	for _, id := range now {
		if !slices.Contains(before, id) {
			return false
		}
	}
	for _, id := range before {
		if !slices.Contains(now, id) && !slices.Contains(leaving, id) {
			return false
		}
	}
	return true
}

// handoverTimeout bounds a handover checkpoint: a planned change must not
// wait long for it (a normal round takes tens to hundreds of ms), and
// when it fails the tasks still move, from the last completed checkpoint.
const handoverTimeout = 10 * time.Second

// handover runs the handover checkpoint of a planned change (a scale, a
// worker joining or leaving; design ../../shared/cluster.md §5.5): a
// cluster checkpoint under the assignment in force, taken at once, so that
// the moved tasks restore from it and replay only what arrived since, not
// up to a checkpoint interval. It returns the checkpoint to restore from,
// or 0 when it failed or took longer than handoverTimeout: the change then
// goes ahead from the last completed checkpoint, as a failover does,
// rather than wait (a change that waits for checkpoints that keep failing
// would never happen). Every worker of a is alive: a dead one could not
// ack.
func (c *coordinator) handover(ctx context.Context, a assign.Assignment) uint64 {
	started := time.Now()
	hctx, cancel := context.WithTimeout(ctx, min(handoverTimeout, c.w.timeout))
	defer cancel()
	err := c.round(hctx, a, true)
	c.lastEnd = time.Now()
	if err != nil {
		c.w.log.Warn("handover checkpoint failed; the tasks move from the last completed checkpoint", "assignment", a.Epoch,
			"duration", time.Since(started), "error", err)
		return 0
	}
	c.w.log.Info("handover checkpoint completed", "checkpoint", c.lastCompleted, "assignment", a.Epoch, "duration", time.Since(started))
	return c.lastCompleted
}

// scaled drops the scale request the assignment in force carries out.
func (c *coordinator) scaled(ctx context.Context, scaling bool) {
	if scaling {
		_ = c.w.bucket.KV().Delete(ctx, ScaleKey)
	}
}

// latestCompleted is the newest completed cluster checkpoint, 0 for none.
func latestCompleted(ctx context.Context, b *lease.Bucket) (uint64, error) {
	l, err := ctlrec.Latest(ctx, b)
	if errors.Is(err, lease.ErrNotFound) {
		return 0, nil
	}
	return l.Checkpoint, err
}

func (c *coordinator) refuse(m *nats.Msg, why string) {
	if m.Reply != "" {
		_ = m.Respond(mustJSON(ackReply{Error: why}))
	}
}
