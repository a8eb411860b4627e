package natsio

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// cancelOnDisconnect returns ctx cancelled with nats.ErrDisconnected as
// soon as the connection drops: the answer to a request sent before the
// drop goes to the lost connection and never arrives, so waiting on would
// only spend the outage budget. Call stop when the request is done.
func (c *Conn) cancelOnDisconnect(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	status := c.NC.StatusChanged(nats.DISCONNECTED, nats.RECONNECTING, nats.CLOSED)
	go func() {
		select {
		case _, changed := <-status:
			if changed { // not closed by stop
				cancel(nats.ErrDisconnected)
			}
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		c.NC.RemoveStatusListener(status)
		cancel(nil)
	}
}

// lostAnswer names a request that cancelOnDisconnect ended: the connection
// dropped, an outage (IsOutage), not a cancelled caller.
func lostAnswer(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); errors.Is(err, context.Canceled) && errors.Is(cause, nats.ErrDisconnected) {
		return fmt.Errorf("connection lost while waiting for the answer: %w", cause)
	}
	return err
}

// requestError is requestBatchError, except that "no responders" means no
// stream only once JetStream confirms that no stream captures the subject:
// right after a restart, or during a leader election, it only means that
// JetStream does not answer yet, an outage.
func (c *Conn) requestError(t batchTarget, err error, sentCommit bool) error {
	if isNoResponders(err) && !c.noStreamCaptures(t.subject) {
		return fmt.Errorf("%w: %s: JetStream did not answer (%w); nothing was stored, commit it again",
			ErrBatchUnacknowledged, t, err)
	}
	return requestBatchError(t, err, sentCommit)
}

// noStreamCaptures reports whether JetStream answers that no stream
// captures subject. An unanswered question reports false.
func (c *Conn) noStreamCaptures(subject string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), streamCheckTimeout)
	defer cancel()
	_, err := c.JS.StreamNameBySubject(ctx, subject)
	return errors.Is(err, jetstream.ErrStreamNotFound)
}
