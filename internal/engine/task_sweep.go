package engine

import (
	"fmt"
	"time"
)

// Cleanup of expired state (state.Backend.Sweep) runs on the task
// goroutine between batches. Its budget grows with the records processed:
// visiting more entries than records arrive keeps state bounded at about
// twice what the TTL keeps live, however fast ids churn.
const (
	sweepPerRecord = 2
	minSweep       = 256
	// An idle task sweeps on a timer, so state shrinks after traffic stops.
	idleSweepInterval = time.Second
	idleSweepBudget   = 4096
)

// sweep removes up to a budget of expired entries after n records and
// publishes the backend's state gauges for metrics.
func (t *task) sweep(n int) error {
	if !t.op.hasTTL || t.released.Load() {
		return nil
	}
	t.clock.tick()
	if _, err := t.backend.Sweep(max(minSweep, n*sweepPerRecord)); err != nil {
		return fmt.Errorf("operator %q task %d: %w", t.op.cfg.Name, t.index, err)
	}
	s := t.backend.Stats()
	t.stateExpired.Store(s.Expired())
	t.stateLiveEntries.Store(s.LiveEntries)
	t.stateLiveBytes.Store(s.LiveBytes)
	t.sweepPasses.Store(s.SweepPasses)
	return nil
}

// idleSweepTimer returns the channel of the idle sweep timer, or nil (never
// ready) when the operator has no TTL.
func (t *task) idleSweepTimer() <-chan time.Time {
	if !t.op.hasTTL {
		return nil
	}
	if t.idleTimer == nil {
		t.idleTimer = time.NewTimer(idleSweepInterval)
	} else {
		t.idleTimer.Reset(idleSweepInterval)
	}
	return t.idleTimer.C
}
