package natsio

import (
	"context"
	"fmt"
	"time"
)

// Unsticking lost acknowledgements. A publish can lose its answer while
// the connection stays up: the stream's leader died after its node took
// the message, and the new leader never saw it (an election takes 4–10 s).
// No error ever comes for it, so the outage resends do not see it, and
// it would wait for its answer forever. When Flush has seen no
// acknowledgement for SinkOptions.StallResend while connected, the Sink
// stops waiting for the answers (failSent, which fails each pending
// publish with errStalled) and sends the very same messages again through
// the outage resends: the stream keeps one copy of each by its id.

// errStalled is the outage a publish failed with when its answer did not
// come in time.
var errStalled = fmt.Errorf("%w: no acknowledgement came while connected", ErrUnreachable)

// stallTimer is the timer of resendStalled; one that never fires when
// stall resends are off.
func (s *Sink) stallTimer() *time.Timer {
	if s.stall <= 0 || s.budget <= 0 {
		t := time.NewTimer(time.Hour)
		t.Stop()
		return t
	}
	return time.NewTimer(s.stall)
}

// resendStalled sends the pending publishes again when none settled since
// settled and the connection is up (a connection that is down has its own
// resends). It reports whether it did.
func (s *Sink) resendStalled(settled uint64) bool {
	s.mu.Lock()
	stuck := s.settledCount() == settled && len(s.pending) > 0 && s.conn.NC.IsConnected() && !s.closed
	if stuck {
		s.stats.Unstuck++
	}
	s.mu.Unlock()
	if stuck {
		s.failSent(errStalled)
	}
	return stuck
}

// takeSlot takes a slot for one more publish. While every slot is taken it
// waits as Flush does: a task that publishes faster than the stream
// acknowledges waits here, not in Flush, so publishes whose answers were
// lost would otherwise hold their slots for ever, and the task, its
// source and the next checkpoint with them.
func (s *Sink) takeSlot(ctx context.Context) error {
	select {
	case s.slots <- struct{}{}:
		return nil
	default:
	}
	for {
		s.mu.Lock()
		settled := s.settledCount()
		s.mu.Unlock()
		took, err := s.await(ctx, nil, s.slots, settled)
		if err != nil || took {
			return err
		}
		if err := s.usable(); err != nil {
			return err // the outage outlasted the budget: pending failed
		}
	}
}
