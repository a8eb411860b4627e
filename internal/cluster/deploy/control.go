package deploy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/lease"
	"github.com/wasmstream/wasmstream/internal/cluster/member"
	"github.com/wasmstream/wasmstream/internal/cluster/worker"
)

// Holder is the holder of the coordinator lease while Seed runs, and the
// worker its ack and task objects name.
const Holder = "deploy"

// LeaseTTL is the coordinator lease's TTL while Seed holds it, renewed
// every fifth of it: a deploy that dies keeps workers started after it
// waiting for at most this long. Seed releases it when done.
const LeaseTTL = 15 * time.Second

// coordinatorHold is Seed's term as coordinator: ctx ends when the lease
// is lost, with the loss as its cause.
type coordinatorHold struct {
	l    *lease.Lease
	ctx  context.Context
	stop context.CancelCauseFunc
	done chan struct{}
}

// takeCoordinator acquires the coordinator lease and keeps it renewed,
// refusing (ErrWorkersRunning) while a worker holds it or its membership
// lease.
func (c *cluster) takeCoordinator(ctx context.Context) (*coordinatorHold, error) {
	l, err := c.bucket.Acquire(ctx, worker.CoordinatorKey, Holder, LeaseTTL)
	if errors.Is(err, lease.ErrHeld) {
		return nil, c.leaseHeld(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("pipeline %q: take the coordinator lease: %w", c.cfg.Name, err)
	}
	h := &coordinatorHold{l: l, done: make(chan struct{})}
	h.ctx, h.stop = context.WithCancelCause(ctx)
	go h.keep()
	if err := c.noMembers(h.ctx); err != nil {
		h.release()
		return nil, err
	}
	return h, nil
}

// noMembers refuses (ErrWorkersRunning) while a worker holds its
// membership lease: one that started while the lease was free may run
// tasks from an older checkpoint, and it would not restart them for the
// seeded one.
func (c *cluster) noMembers(ctx context.Context) error {
	ids, err := c.members(ctx)
	switch {
	case err != nil:
		return fmt.Errorf("pipeline %q: list the workers' membership leases: %w", c.cfg.Name, err)
	case len(ids) == 0:
		return nil
	}
	who := fmt.Sprintf("workers %s hold membership leases", strings.Join(ids, ", "))
	if len(ids) == 1 {
		who = fmt.Sprintf("worker %s holds its membership lease", ids[0])
	}
	return c.workersRunning(fmt.Sprintf("%s (keys %s)", who, member.Key("<id>")))
}

func (c *cluster) workersRunning(why string) error {
	return fmt.Errorf("%w: pipeline %q: %s in KV %s on %s; stop the workers first (every wasmstream worker of the pipeline), then deploy again; a worker that was killed holds its leases until cluster.lease_ttl (%s) passes",
		ErrWorkersRunning, c.cfg.Name, why, c.bucket.Name(), c.assets.Server, c.cfg.Cluster.LeaseTTL)
}

// leaseHeld explains a held coordinator lease: a worker's, or another
// deploy's.
func (c *cluster) leaseHeld(ctx context.Context) error {
	holder := "another process"
	if m, err := c.bucket.Get(ctx, worker.CoordinatorKey); err == nil {
		if h, ok := lease.HolderOf(m.Data); ok {
			holder = h
		}
	}
	if holder == Holder {
		return fmt.Errorf("%w: pipeline %q: another deploy holds the coordinator lease (key %s in KV %s on %s); wait for it to end (one that died lets go within %s) and deploy again",
			lease.ErrHeld, c.cfg.Name, worker.CoordinatorKey, c.bucket.Name(), c.assets.Server, LeaseTTL)
	}
	return c.workersRunning(fmt.Sprintf("%q holds the coordinator lease (key %s)", holder, worker.CoordinatorKey))
}

// members lists the ids of the workers holding a membership lease.
func (c *cluster) members(ctx context.Context) ([]string, error) {
	lister, err := c.bucket.KV().ListKeysFiltered(ctx, member.Key("*"))
	if err != nil {
		return nil, err
	}
	var ids []string
	for k := range lister.Keys() {
		ids = append(ids, strings.TrimPrefix(k, member.Key("")))
	}
	slices.Sort(ids)
	return ids, nil
}

// keep renews the lease every fifth of its TTL until release; once it is
// lost, or about to expire unrenewed, it ends ctx (as a coordinator
// steps down: worker.keepLease).
func (h *coordinatorHold) keep() {
	defer close(h.done)
	tick := time.NewTicker(lease.Margin(h.l.TTL()))
	defer tick.Stop()
	for {
		select {
		case <-h.ctx.Done():
			return
		case <-tick.C:
		}
		rctx, cancel := context.WithTimeout(h.ctx, lease.Margin(h.l.TTL()))
		err := h.l.Renew(rctx)
		cancel()
		switch {
		case errors.Is(err, lease.ErrLost):
			h.stop(err)
			return
		case time.Now().After(h.l.ValidUntil()):
			h.stop(fmt.Errorf("%w: the coordinator lease is about to expire unrenewed (NATS unreachable?)", lease.ErrLost))
			return
		}
	}
}

// release stops renewing and deletes the lease, so workers need not wait
// for its TTL.
func (h *coordinatorHold) release() {
	h.stop(nil)
	<-h.done
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = h.l.Release(ctx)
}

// lost returns err, or err with the loss of the lease when that is what
// ended the hold's context.
func (h *coordinatorHold) lost(err error) error {
	if err == nil || h.ctx.Err() == nil {
		return err
	}
	if cause := context.Cause(h.ctx); errors.Is(cause, lease.ErrLost) && !errors.Is(err, lease.ErrLost) {
		return fmt.Errorf("%w: %w", cause, err)
	}
	return err
}

// latestBefore returns the cluster's latest completed checkpoint (0 for
// none); one is ErrCheckpointsExist unless force.
func (c *cluster) latestBefore(ctx context.Context, force bool) (uint64, error) {
	latest, err := ctlrec.Latest(ctx, c.bucket)
	switch {
	case errors.Is(err, lease.ErrNotFound):
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("pipeline %q: read the latest cluster checkpoint: %w", c.cfg.Name, err)
	case !force:
		return 0, fmt.Errorf("%w: pipeline %q has completed cluster checkpoint %d (generation %d) in KV %s, which the workers restore; "+
			"--force seeds the savepoint as the next checkpoint and makes it the latest (wasmstream checkpoints list PIPELINE.hcl shows them)",
			ErrCheckpointsExist, c.cfg.Name, latest.Checkpoint, latest.Generation, c.bucket.Name())
	}
	return latest.Checkpoint, nil
}

// assignmentEpoch is the epoch of the assignment in force, 1 before the
// first: the seeded checkpoint is of that assignment, as a coordinator's
// would be.
func (c *cluster) assignmentEpoch(ctx context.Context) (uint64, error) {
	a, err := ctlrec.ReadAssignment(ctx, c.bucket)
	switch {
	case errors.Is(err, lease.ErrNotFound):
		return 1, nil
	case err != nil:
		return 0, fmt.Errorf("pipeline %q: read the assignment: %w", c.cfg.Name, err)
	}
	return max(a.Epoch, 1), nil
}
