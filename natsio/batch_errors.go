package natsio

import (
	"errors"
	"fmt"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Sentinel errors of atomic batch publishing. Whatever the error, committing
// the same batch again is safe: the message ids make JetStream refuse a
// batch it already stored (reported as BatchAlreadyCommitted).
var (
	// ErrInvalidBatch reports a batch refused before anything was sent:
	// empty, over MaxAtomicBatch, a message without or with a repeated
	// message id, a bad batch id or subject. It is a bug in the caller.
	ErrInvalidBatch = errors.New("natsio: invalid atomic batch")
	// ErrAtomicPublishDisabled reports a stream without allow_atomic.
	ErrAtomicPublishDisabled = errors.New("natsio: atomic batch publish is disabled on the stream")
	// ErrBatchTooLarge reports a batch over the server's limit of messages
	// per atomic batch.
	ErrBatchTooLarge = errors.New("natsio: atomic batch too large")
	// ErrBatchRejected reports a batch the server refused as a whole:
	// nothing of it was stored. The wrapped *jetstream.APIError says why.
	ErrBatchRejected = errors.New("natsio: atomic batch rejected")
	// ErrBatchUnacknowledged reports a commit whose answer never came (lost
	// connection, timeout): the batch may or may not be stored.
	ErrBatchUnacknowledged = errors.New("natsio: atomic batch not acknowledged")
)

// Server error codes (nats-server jetstream_errors_generated.go) that the
// batch publisher tells apart. ErrorIdentifier values are the err_code.
const (
	codeBatchDuplicate  = jetstream.ErrorCode(server.JSAtomicPublishContainsDuplicateMessageErr) // 10201
	codeBatchDisabled   = jetstream.ErrorCode(server.JSAtomicPublishDisabledErr)                 // 10174
	codeBatchIncomplete = jetstream.ErrorCode(server.JSAtomicPublishIncompleteBatchErr)          // 10176
	codeBatchTooLarge   = jetstream.ErrorCode(server.JSAtomicPublishTooLargeBatchErrF)           // 10199
	codeBatchInflight   = jetstream.ErrorCode(server.JSAtomicPublishTooManyInflight)             // 10210
	codeBatchHeader     = jetstream.ErrorCode(server.JSAtomicPublishUnsupportedHeaderBatchErr)   // 10177
	codeDuplicateInFlux = jetstream.ErrorCode(server.JSStreamDuplicateMessageConflict)           // 10158
)

// batchTarget names what a batch was sent to, for error messages.
type batchTarget struct {
	id      string
	subject string // subject of the message that got the answer
	stream  string // from the server's answer; "" if none came
}

func (t batchTarget) String() string {
	if t.stream == "" {
		return fmt.Sprintf("atomic batch %q (subject %q)", t.id, t.subject)
	}
	return fmt.Sprintf("atomic batch %q to stream %s (subject %q)", t.id, t.stream, t.subject)
}

// apiBatchError turns a server refusal into an error that says what to do.
func apiBatchError(t batchTarget, e *jetstream.APIError) error {
	switch e.ErrorCode {
	case codeBatchDisabled:
		return fmt.Errorf("%w: %s: the stream does not allow atomic batch publish; enable allow_atomic on it "+
			"(EnsureAtomicStream when the pipeline creates it, EnableAtomicPublish or `nats stream edit` for an existing one): %w",
			ErrAtomicPublishDisabled, t, e)
	case codeBatchTooLarge:
		return fmt.Errorf("%w: %s: %s; the server's limit is jetstream.limits.batch.max_msgs (default %d): "+
			"lower the sink's batch size to it: %w", ErrBatchTooLarge, t, e.Description, MaxAtomicBatch, e)
	case codeBatchIncomplete:
		return fmt.Errorf("%w: %s: the server saw an incomplete batch and stored none of it (a message lost in transit, "+
			"more than %s between two messages, or messages for more than one stream); commit it again: %w",
			ErrBatchRejected, t, batchServerTimeout, e)
	case codeBatchInflight, codeDuplicateInFlux:
		return fmt.Errorf("%w: %s: the server is busy with other batches on this stream; nothing was stored, commit it again later: %w",
			ErrBatchRejected, t, e)
	case codeBatchHeader:
		return fmt.Errorf("%w: %s: a message carries a header atomic batches do not support; nothing was stored: %w",
			ErrBatchRejected, t, e)
	}
	return fmt.Errorf("%w: %s: the server refused a message of the batch and stored none of it: %w", ErrBatchRejected, t, e)
}

// requestBatchError turns a failed request (no answer) into an error.
// sentCommit says whether the commit message went out: before it, nothing
// can have been stored.
func requestBatchError(t batchTarget, err error, sentCommit bool) error {
	if errors.Is(err, nats.ErrNoResponders) {
		return fmt.Errorf("%w %q: no stream answered %s; declare a stream whose subjects include it, or fix the output subject: %w",
			ErrNoStream, t.subject, t, err)
	}
	if !sentCommit {
		return fmt.Errorf("%w: %s: no answer to its first message (%w); nothing was committed, commit it again",
			ErrBatchUnacknowledged, t, err)
	}
	return fmt.Errorf("%w: %s: no answer to the commit (%w); it may or may not be stored, so commit it again: "+
		"the message ids make the server refuse it if it was", ErrBatchUnacknowledged, t, err)
}
