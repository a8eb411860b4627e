package natsio

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// ackConfirmTimeout bounds the wait for the server's confirmation of the
// last acknowledgement when ctx has no earlier deadline.
const ackConfirmTimeout = 30 * time.Second

// AckThrough acknowledges every delivered message with a stream sequence up
// to seq (the position a completed checkpoint records) and waits until the
// server confirms it: on a WorkQueue stream those messages are then gone.
// Messages after seq stay unacknowledged. Calling it again with the same
// or a lower seq does nothing.
//
// On error nothing is forgotten: the next AckThrough acknowledges again
// (acknowledgements are idempotent), and a source reopened after a crash
// acknowledges what its start position covers.
func (a *AckingSource) AckThrough(ctx context.Context, seq uint64) error {
	a.ackMu.Lock()
	defer a.ackMu.Unlock()
	batch := a.ackable(seq)
	if len(batch) == 0 {
		return nil
	}
	if err := a.sendAcks(ctx, batch); err != nil {
		return fmt.Errorf("natsio: acknowledging stream %s through sequence %d (durable consumer %s): %w; "+
			"the next AckThrough will acknowledge them again", a.spec.Stream, batch[len(batch)-1].seq, a.spec.Durable, err)
	}
	a.forget(len(batch))
	return nil
}

// ackable returns the pending prefix with sequences <= seq.
func (a *AckingSource) ackable(seq uint64) []pendingAck {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := sort.Search(len(a.pending), func(i int) bool { return a.pending[i].seq > seq })
	return a.pending[:n:n]
}

// sendAcks acknowledges batch: with AckAll the last one covers all, with
// explicit acknowledgements each is sent. The last is a request: the
// server answers after processing it, and it processes one connection's
// acknowledgements in order, so the answer confirms them all.
func (a *AckingSource) sendAcks(ctx context.Context, batch []pendingAck) error {
	last := len(batch) - 1
	if a.policy == jetstream.AckExplicitPolicy {
		for _, p := range batch[:last] {
			if err := a.nc.Publish(p.reply, ackBody); err != nil {
				return err
			}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, ackConfirmTimeout)
	defer cancel()
	_, err := a.nc.RequestWithContext(ctx, batch[last].reply, ackBody)
	return err
}

// forget drops the first n pending entries, acknowledged now. The pump only
// appends, so they are still the first n.
func (a *AckingSource) forget(n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.pending = append(a.pending[:0:0], a.pending[n:]...)
}

// Unacknowledged returns how many delivered messages await AckThrough.
func (a *AckingSource) Unacknowledged() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.pending)
}

// Fetch returns buffered messages as Source.Fetch does.
func (a *AckingSource) Fetch(ctx context.Context, max int, maxWait time.Duration) ([]Message, error) {
	return a.src.Fetch(ctx, max, maxWait)
}

// Identity is the stream's name and creation time, as Source.Identity.
func (a *AckingSource) Identity() StreamIdentity { return a.src.Identity() }

// Close stops reading without acknowledging anything: what was delivered
// and not acknowledged is delivered again to the next AckingSource on the
// same durable. The durable consumer stays on the server.
func (a *AckingSource) Close() { a.src.Close() }
