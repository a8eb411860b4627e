package natsio

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Resending through an outage. When the connection drops, nats.go fails
// every publish still waiting for its acknowledgement (ErrDisconnected):
// the server may or may not have stored it. The Sink keeps such a publish
// pending and sends the very same message (same Nats-Msg-Id) again once the
// connection is back, so the stream's duplicate window keeps one copy. It
// does so until the outage has lasted the budget; after that the publish
// fails as any other would. Order between resent and new messages is not
// kept: an idempotent sink never promised it across a failure.

// outage is the Sink's state while NATS does not answer. Lock held for all.
type outage struct {
	since time.Time // first outage failure since the last acknowledgement; zero: none
	queue []retry   // publishes to send again
	// resending: the resender goroutine runs (started at the first outage).
	resending bool
}

// retry is a publish to send again, with the error that failed it.
type retry struct {
	msg *nats.Msg
	err error
}

// within dates the outage from began unless it began earlier, and reports
// whether it is shorter than budget.
func (o *outage) within(began time.Time, budget time.Duration) bool {
	if budget <= 0 {
		return false
	}
	if o.since.IsZero() || began.Before(o.since) {
		o.since = began
	}
	return time.Since(o.since) < budget
}

// retryLater queues msg to be sent again when err is an outage that has not
// outlasted the budget, and the Sink and its connection are still usable
// (a closed connection never comes back). Lock held.
func (s *Sink) retryLater(msg *nats.Msg, err error) bool {
	if s.closed || s.err != nil || s.conn.NC.IsClosed() || !IsOutage(err) || !s.outage.within(time.Now(), s.budget) {
		return false
	}
	s.outage.queue = append(s.outage.queue, retry{msg: msg, err: err})
	if !s.outage.resending {
		s.outage.resending = true
		go s.resendLoop()
	}
	select {
	case s.wake <- struct{}{}:
	default: // already woken
	}
	return true
}

// resendLoop sends queued publishes again, at most once per resendPause,
// until the Sink or its connection closes.
func (s *Sink) resendLoop() {
	for !s.conn.NC.IsClosed() {
		select {
		case <-s.wake:
		case <-s.done:
			return
		case <-s.conn.closed:
		}
		select {
		case <-time.After(resendPause):
		case <-s.done:
			return
		}
		if s.awaitConnection() && s.mayResend() {
			s.resend(s.takeRetries())
		}
	}
	s.failQueuedPastBudget(true)
}

// awaitConnection waits until the connection is up. It reports false when
// the Sink closed, or when the budget ran out meanwhile (what was queued
// has then failed).
func (s *Sink) awaitConnection() bool {
	tick := time.NewTicker(resendPause)
	defer tick.Stop()
	for nc := s.conn.NC; !nc.IsConnected(); {
		// A closed connection never comes back: fail now.
		if s.failQueuedPastBudget(nc.IsClosed()) {
			return false
		}
		select {
		case <-tick.C:
		case <-s.done:
			return false
		}
	}
	return true
}

// failQueuedPastBudget fails the queued publishes once the outage has
// lasted the budget, or at once when now is set, and reports whether it
// did.
func (s *Sink) failQueuedPastBudget(now bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !now && s.outage.within(time.Now(), s.budget) {
		return false
	}
	for _, r := range s.outage.queue {
		if s.settle(r.msg) {
			s.fail(r.msg, r.err)
		}
	}
	s.outage.queue = nil
	return true
}

// mayResend asks SinkOptions.BeforeResend, which may wait; until the Sink
// closes. Refused, every queued publish fails with the refusal.
func (s *Sink) mayResend() bool {
	if s.beforeResend == nil {
		return true
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-s.done:
			cancel()
		case <-stop:
		}
	}()
	err := s.beforeResend(ctx)
	if err == nil {
		return true
	}
	for _, r := range s.takeRetries() {
		s.onError(r.msg, fmt.Errorf("%w: %w", ErrResendRefused, err))
	}
	return false
}

// takeRetries empties the queue; nothing when the Sink closed.
func (s *Sink) takeRetries() []retry {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	q := s.outage.queue
	s.outage.queue = nil
	return q
}

// resend publishes rs again. A publish that met no responder is checked
// first: if JetStream says no stream captures its subject, it fails now
// instead of being sent again blindly until the budget ends.
func (s *Sink) resend(rs []retry) {
	checked := map[string]error{} // subject: its refusal, asked once per round
	for _, r := range rs {
		if err := s.refusal(r, checked); err != nil {
			s.onError(r.msg, err)
			continue
		}
		if !s.countResend(r.msg) {
			continue // failed or abandoned meanwhile
		}
		if err := s.sendNew(r.msg); err != nil {
			s.onError(r.msg, err)
		}
	}
}

// countResend counts a resend of msg, unless msg is no longer pending.
func (s *Sink) countResend(msg *nats.Msg) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.pending[msg]; !ok || s.closed {
		return false
	}
	s.stats.Resent++
	s.subject(msg).Resent++
	return true
}

// refusal returns the error to fail r with when it met no responder and
// JetStream says no stream captures its subject; nil: send it again.
func (s *Sink) refusal(r retry, checked map[string]error) error {
	if !isNoResponders(r.err) {
		return nil
	}
	subject := r.msg.Subject
	if err, ok := checked[subject]; ok {
		return err
	}
	var err error
	if s.conn.noStreamCaptures(subject) {
		err = fmt.Errorf("%w %q: JetStream answers, but no stream captures the subject; declare a stream whose "+
			"subjects include it, or fix the output subject: %w", ErrNoStream, subject, r.err)
	}
	checked[subject] = err
	return err
}

func isNoResponders(err error) bool {
	return errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrNoResponders)
}
