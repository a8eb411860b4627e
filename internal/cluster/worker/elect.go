package worker

import (
	"context"
	"errors"
	"time"

	"github.com/wasmstream/wasmstream/internal/cluster/lease"
)

// CoordinatorKey is the coordinator lease's key in the control bucket.
const CoordinatorKey = "coordinator"

// elect runs for the coordinator lease until ctx ends: whoever holds it
// coordinates until it loses it (expiry, a refused fenced write), then
// every worker races for it again. Generation = the lease's revision, so
// a newer coordinator always has a higher one (design §5.1).
func (w *worker) elect(ctx context.Context) error {
	ttl := w.cfg.Cluster.LeaseTTL
	for ctx.Err() == nil {
		l, err := w.bucket.Acquire(ctx, CoordinatorKey, w.id, ttl)
		switch {
		case errors.Is(err, lease.ErrHeld):
			_ = sleep(ctx, lease.Margin(ttl))
			continue
		case err != nil:
			if ctx.Err() == nil {
				w.log.Warn("coordinator election failed; retrying", "error", err)
			}
			_ = sleep(ctx, time.Second)
			continue
		}
		w.log.Info("coordinator elected", "worker", w.id, "generation", l.Generation())
		err = w.coordinate(ctx, l)
		if ctx.Err() != nil {
			releaseCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_ = l.Release(releaseCtx)
			cancel()
			return nil
		}
		w.log.Warn("stepped down as coordinator", "worker", w.id, "generation", l.Generation(), "reason", err)
	}
	return nil
}

// keepLease renews l every TTL/5 until ctx ends or it is lost; it cancels
// stop then. A coordinator past the lease's ValidUntil (its last stored
// renewal plus the TTL less a margin) stops acting on its own (self-fencing on the monotonic
// clock): its fenced writes would be refused anyway.
func keepLease(ctx context.Context, l *lease.Lease, stop context.CancelCauseFunc) {
	tick := time.NewTicker(lease.Margin(l.TTL()))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		rctx, cancel := context.WithTimeout(ctx, lease.Margin(l.TTL()))
		err := l.Renew(rctx)
		cancel()
		if errors.Is(err, lease.ErrLost) {
			stop(err)
			return
		}
		if time.Now().After(l.ValidUntil()) {
			stop(errors.New("coordinator lease about to expire unrenewed (NATS unreachable?): stepping down"))
			return
		}
	}
}
