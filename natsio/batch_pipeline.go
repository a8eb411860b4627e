package natsio

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
)

// Several atomic batches in flight. PublishAtomicBatch waits for two
// answers per batch (its first message, then its commit), and while the
// server stores one batch the sink has nothing to do; on a loaded machine
// the waits are most of a publication (BENCHMARKS.md "Sinks").
// PublishAtomicBatches therefore sends the next batch while the commits of
// up to Window earlier ones are unanswered, and, unless told that the
// batches may have been sent before, sends each first message without
// waiting for its answer. Every batch is still sent whole before its
// commit, and the commits go out in order on one connection, so the stream
// stores the batches in order: a death leaves visible a prefix of them (at
// most Window-1 beyond the last answered one).

// AtomicBatch is one batch of PublishAtomicBatches.
type AtomicBatch struct {
	ID   string
	Msgs []OutMessage
}

// BatchFlight says how PublishAtomicBatches sends its batches.
type BatchFlight struct {
	// Window is how many commits may await their answer (at least 1).
	Window int
	// Again: the batches may have been sent before, less than the server's
	// batch timeout ago (a restart, a retry after a failure), so the server
	// may hold an open batch under one of their ids. Each first message is
	// then sent as a request, whose answer abandons such a batch before the
	// rest follows, as PublishAtomicBatch does. Without Again a batch that
	// meets one anyway is answered "incomplete" at its commit and sent once
	// more alone, after the batches in flight: stored whole, but out of
	// order.
	Again bool
}

// PublishAtomicBatches publishes batches in order as PublishAtomicBatch
// would, with up to f.Window commits awaiting their answer, and calls done
// with each batch's result in order (not concurrently). It stops at the
// first error (a failed batch, or done's), after the answers of the
// commits already sent, and returns it; batches after it may have been
// stored, so the recovery is to publish all of them again with the same
// ids and Again, which reports the stored ones BatchAlreadyCommitted.
func (c *Conn) PublishAtomicBatches(ctx context.Context, batches []AtomicBatch, f BatchFlight, done func(i int, r BatchResult) error) error {
	window := f.Window
	if window < 1 {
		return fmt.Errorf("%w: %d batches in flight, need at least 1", ErrInvalidBatch, window)
	}
	for _, b := range batches {
		if err := validateBatch(b.ID, b.Msgs, MaxAtomicBatch); err != nil {
			return err
		}
	}
	var inflight []pendingCommit // oldest first
	var first error
	settle := func() {
		p := inflight[0]
		inflight = inflight[1:]
		res, err := p.answer(c)
		var incomplete *incompleteBatchError
		if errors.As(err, &incomplete) && first == nil {
			// Nothing of it was stored (a stale open batch under its id):
			// once more, alone, as PublishAtomicBatch does.
			res, err = c.publishBatchOnce(ctx, p.batch.ID, p.batch.Msgs)
			if errors.As(err, &incomplete) {
				err = incomplete.err
			}
		}
		if err == nil && first == nil {
			err = done(p.index, res)
		}
		if err != nil && first == nil {
			first = err
		}
	}
	for i, b := range batches {
		for len(inflight) >= window || (first != nil && len(inflight) > 0) {
			settle()
		}
		if first != nil {
			break
		}
		p, err := c.sendBatch(ctx, i, b, f.Again)
		if err != nil {
			first = err
			break
		}
		inflight = append(inflight, p)
	}
	for len(inflight) > 0 {
		settle()
	}
	return first
}

// pendingCommit is a batch whose commit was sent and not yet answered.
// Its wait is bounded from the send, and ended as soon as the connection
// drops after the send: the answer would go to the lost connection.
type pendingCommit struct {
	index int
	batch AtomicBatch
	sub   *nats.Subscription
	ctx   context.Context
	stop  func()
}

// sendBatch stages b's messages and sends its commit without waiting for
// the answer, which arrives on the returned subscription. With again the
// first message waits for its answer (BatchFlight.Again).
func (c *Conn) sendBatch(ctx context.Context, i int, b AtomicBatch, again bool) (pendingCommit, error) {
	last := len(b.Msgs) - 1
	if last > 0 && !again {
		// The server answers nothing to a staged message without a reply
		// subject; a refused first message shows at the commit.
		for j := 0; j < last; j++ {
			if err := c.NC.PublishMsg(batchMsg(b.ID, j, b.Msgs[j], false)); err != nil {
				return pendingCommit{}, fmt.Errorf("%w: atomic batch %q, message %d to %q: %w", ErrBatchUnacknowledged, b.ID, j+1, b.Msgs[j].Subject, err)
			}
		}
	} else if last > 0 {
		if err := c.stageFirst(ctx, b.ID, b.Msgs[0]); err != nil {
			var incomplete *incompleteBatchError
			if !errors.As(err, &incomplete) {
				return pendingCommit{}, err
			}
			// The stale open batch was abandoned by this answer: start again.
			if err := c.stageFirst(ctx, b.ID, b.Msgs[0]); err != nil {
				if errors.As(err, &incomplete) {
					err = incomplete.err
				}
				return pendingCommit{}, err
			}
		}
		for j := 1; j < last; j++ {
			if err := c.NC.PublishMsg(batchMsg(b.ID, j, b.Msgs[j], false)); err != nil {
				return pendingCommit{}, fmt.Errorf("%w: atomic batch %q, message %d to %q: %w", ErrBatchUnacknowledged, b.ID, j+1, b.Msgs[j].Subject, err)
			}
		}
	}
	sub, err := c.NC.SubscribeSync(c.NC.NewInbox())
	if err != nil {
		return pendingCommit{}, fmt.Errorf("%w: atomic batch %q: subscribing to its answer: %w", ErrBatchUnacknowledged, b.ID, err)
	}
	// Watch the connection before the commit leaves: a drop between the
	// send and the wait for the answer must end that wait too.
	wait, cancel := context.WithTimeout(ctx, AtomicBatchAckTimeout)
	wait, stopWatch := c.cancelOnDisconnect(wait)
	p := pendingCommit{index: i, batch: b, sub: sub, ctx: wait, stop: func() { stopWatch(); cancel(); _ = sub.Unsubscribe() }}
	msg := batchMsg(b.ID, last, b.Msgs[last], true)
	msg.Reply = sub.Subject
	if err := c.NC.PublishMsg(msg); err != nil {
		p.stop()
		t := batchTarget{id: b.ID, subject: b.Msgs[last].Subject}
		return pendingCommit{}, c.requestError(t, err, true)
	}
	return p, nil
}

// answer waits for the commit's answer, bounded like batchRequest, and
// reads it as commit does.
func (p pendingCommit) answer(c *Conn) (BatchResult, error) {
	defer p.stop()
	msgs := p.batch.Msgs
	t := batchTarget{id: p.batch.ID, subject: msgs[len(msgs)-1].Subject}
	reply, err := p.sub.NextMsgWithContext(p.ctx)
	if err != nil {
		return BatchResult{}, c.requestError(t, lostAnswer(p.ctx, err), true)
	}
	if len(reply.Data) == 0 && reply.Header.Get("Status") == "503" {
		return BatchResult{}, c.requestError(t, nats.ErrNoResponders, true)
	}
	a, err := parseBatchAck(reply.Data)
	if err != nil {
		return BatchResult{}, c.requestError(t, err, true)
	}
	return commitResult(t, a, p.batch.ID, len(msgs))
}
