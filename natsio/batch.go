package natsio

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
)

// Atomic batch limits. The server's values are its defaults
// (nats-server stream.go streamDefaultMaxAtomicBatchSize and
// streamDefaultMaxBatchTimeout); an operator can change them in the
// server configuration under jetstream { limits { batch { ... } } }.
const (
	// MaxAtomicBatch is the most messages PublishAtomicBatch sends in one
	// batch: the server's default limit (max_msgs).
	MaxAtomicBatch = 1000
	// MaxBatchIDLen is the longest batch id the server accepts.
	MaxBatchIDLen = 64
	// AtomicBatchAckTimeout bounds the wait for each answer of the server
	// when ctx has no earlier deadline, so that a lost answer cannot block
	// a commit forever.
	AtomicBatchAckTimeout = 30 * time.Second
	// batchServerTimeout is how long the server keeps an open batch
	// without a new message before abandoning it (timeout).
	batchServerTimeout = 10 * time.Second
)

// BatchStatus says what committing a batch did.
type BatchStatus int

const (
	// BatchCommitted means the whole batch is now stored.
	BatchCommitted BatchStatus = iota + 1
	// BatchAlreadyCommitted means the stream already holds a message id of
	// the batch (within its duplicate window), so the server refused the
	// batch as a whole: an earlier commit of the same batch stored it.
	BatchAlreadyCommitted
)

func (s BatchStatus) String() string {
	switch s {
	case BatchCommitted:
		return "committed"
	case BatchAlreadyCommitted:
		return "already committed"
	}
	return fmt.Sprintf("BatchStatus(%d)", int(s))
}

// BatchResult is the outcome of one atomic batch.
type BatchResult struct {
	BatchID string
	Status  BatchStatus
	Stream  string // the stream that answered
	Count   int    // messages in the batch
	// FirstSeq and LastSeq are the stream sequences the batch got when
	// Status is BatchCommitted (a batch is stored contiguously); both are
	// 0 when it was already committed (the server does not say where).
	FirstSeq, LastSeq uint64
}

// PublishAtomicBatch publishes msgs as one JetStream atomic batch: the
// stream stores all of them or none. Every message needs a MsgID, unique
// within the batch, and all must go to subjects of one stream that allows
// atomic publish (EnsureAtomicStream). It waits for the commit's answer.
//
// A batch the stream already holds (a message id of it is stored within
// the duplicate window) is reported as BatchAlreadyCommitted, not as an
// error: committing the same batch twice is how a sink recovers from a
// crash. Every error means the batch may be committed again safely; see
// ErrInvalidBatch and the errors declared with it for what each says.
//
// msgs[i].Data must not change until PublishAtomicBatch returns.
func (c *Conn) PublishAtomicBatch(ctx context.Context, batchID string, msgs []OutMessage) (BatchResult, error) {
	if err := validateBatch(batchID, msgs, MaxAtomicBatch); err != nil {
		return BatchResult{}, err
	}
	res, err := c.publishBatchOnce(ctx, batchID, msgs)
	var incomplete *incompleteBatchError
	if errors.As(err, &incomplete) {
		// Most often the server still had an open batch under this id (a
		// commit that crashed half-way less than the batch timeout ago); its
		// answer abandoned that one and nothing was stored, so a second
		// attempt starts afresh.
		res, err = c.publishBatchOnce(ctx, batchID, msgs)
	}
	if errors.As(err, &incomplete) {
		err = incomplete.err
	}
	return res, err
}

// incompleteBatchError is an "incomplete batch" answer (10176): the server
// stored nothing, typically because it had an open batch with the same id.
type incompleteBatchError struct{ err error }

func (e *incompleteBatchError) Error() string { return e.err.Error() }
func (e *incompleteBatchError) Unwrap() error { return e.err }

func (c *Conn) publishBatchOnce(ctx context.Context, id string, msgs []OutMessage) (BatchResult, error) {
	last := len(msgs) - 1
	if last > 0 {
		if err := c.stageFirst(ctx, id, msgs[0]); err != nil {
			return BatchResult{}, err
		}
		for i := 1; i < last; i++ {
			// No reply: the commit's answer covers them (a lost one makes
			// the server refuse the batch as incomplete).
			if err := c.NC.PublishMsg(batchMsg(id, i, msgs[i], false)); err != nil {
				return BatchResult{}, fmt.Errorf("%w: atomic batch %q, message %d to %q: %w", ErrBatchUnacknowledged, id, i+1, msgs[i].Subject, err)
			}
		}
	}
	return c.commit(ctx, id, msgs)
}

// stageFirst sends the first message as a request: its answer tells at once
// whether the stream accepts the batch (enabled, not too many open ones).
func (c *Conn) stageFirst(ctx context.Context, id string, m OutMessage) error {
	t := batchTarget{id: id, subject: m.Subject}
	a, err := c.batchRequest(ctx, batchMsg(id, 0, m, false))
	if err != nil {
		return c.requestError(t, err, false)
	}
	if a.Error == nil {
		return nil
	}
	t.stream = a.Stream
	if a.Error.ErrorCode == codeBatchIncomplete {
		return &incompleteBatchError{apiBatchError(t, a.Error)}
	}
	return apiBatchError(t, a.Error)
}

// commit sends the last message with the commit header and reads the result.
func (c *Conn) commit(ctx context.Context, id string, msgs []OutMessage) (BatchResult, error) {
	last := len(msgs) - 1
	t := batchTarget{id: id, subject: msgs[last].Subject}
	a, err := c.batchRequest(ctx, batchMsg(id, last, msgs[last], true))
	if err != nil {
		return BatchResult{}, c.requestError(t, err, true)
	}
	return commitResult(t, a, id, len(msgs))
}

// commitResult reads the answer a to the commit of batch id of n messages.
func commitResult(t batchTarget, a batchAck, id string, n int) (BatchResult, error) {
	t.stream = a.Stream
	res := BatchResult{BatchID: id, Stream: a.Stream, Count: n}
	if a.Error != nil {
		switch a.Error.ErrorCode {
		case codeBatchDuplicate:
			res.Status = BatchAlreadyCommitted
			return res, nil
		case codeBatchIncomplete:
			return BatchResult{}, &incompleteBatchError{apiBatchError(t, a.Error)}
		}
		return BatchResult{}, apiBatchError(t, a.Error)
	}
	if err := checkCommitAck(a, id, n); err != nil {
		return BatchResult{}, fmt.Errorf("%w: %s: %w", ErrBatchUnacknowledged, t, err)
	}
	res.Status = BatchCommitted
	res.FirstSeq, res.LastSeq = a.Seq-a.Count+1, a.Seq
	return res, nil
}

// batchRequest sends msg and decodes the answer, bounded by
// AtomicBatchAckTimeout and ended early when the connection drops (the
// answer would go to the lost connection).
func (c *Conn) batchRequest(ctx context.Context, msg *nats.Msg) (batchAck, error) {
	ctx, cancel := context.WithTimeout(ctx, AtomicBatchAckTimeout)
	defer cancel()
	ctx, stop := c.cancelOnDisconnect(ctx)
	defer stop()
	reply, err := c.NC.RequestMsgWithContext(ctx, msg)
	if err != nil {
		return batchAck{}, lostAnswer(ctx, err)
	}
	return parseBatchAck(reply.Data)
}
