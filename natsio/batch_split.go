package natsio

import (
	"context"
	"fmt"
	"strconv"
)

// BatchSpan is one batch of a split: msgs[Start:End] under ID.
type BatchSpan struct {
	ID         string
	Start, End int
}

// SplitBatches cuts n messages into consecutive batches of size (0 means
// MaxAtomicBatch), named "<prefix>-0", "<prefix>-1", ... The split depends
// only on its arguments, so a re-run after a crash sends every message in
// the same batch under the same id as the first run, which is what lets
// the server recognise the batches it already stored.
func SplitBatches(prefix string, n, size int) ([]BatchSpan, error) {
	if size == 0 {
		size = MaxAtomicBatch
	}
	if size < 0 || size > MaxAtomicBatch {
		return nil, fmt.Errorf("%w: batch size %d must be 1 to %d", ErrInvalidBatch, size, MaxAtomicBatch)
	}
	if n < 0 {
		return nil, fmt.Errorf("%w: %d messages", ErrInvalidBatch, n)
	}
	count := (n + size - 1) / size
	if count > 0 {
		// The last id is the longest.
		if err := validateBatchID(batchID(prefix, count-1)); err != nil {
			return nil, err
		}
	}
	spans := make([]BatchSpan, count)
	for i := range spans {
		spans[i] = BatchSpan{ID: batchID(prefix, i), Start: i * size, End: min((i+1)*size, n)}
	}
	return spans, nil
}

func batchID(prefix string, i int) string { return prefix + "-" + strconv.Itoa(i) }

// CommitBatches commits msgs as consecutive atomic batches (SplitBatches
// with prefix and size), in order, and returns one result per batch
// committed or found committed. On the first failure it returns the results
// so far and the error naming the batch; calling it again with the same
// arguments is the recovery: batches stored before report
// BatchAlreadyCommitted and the rest are committed.
//
// Message ids must be unique across msgs: a repeated id would make its
// later batch look already committed while it was not.
func (c *Conn) CommitBatches(ctx context.Context, prefix string, msgs []OutMessage, size int) ([]BatchResult, error) {
	spans, err := SplitBatches(prefix, len(msgs), size)
	if err != nil {
		return nil, err
	}
	if err := uniqueMsgIDs(prefix, msgs); err != nil {
		return nil, err
	}
	results := make([]BatchResult, 0, len(spans))
	for i, sp := range spans {
		r, err := c.PublishAtomicBatch(ctx, sp.ID, msgs[sp.Start:sp.End])
		if err != nil {
			return results, fmt.Errorf("natsio: batch %d of %d (%s, messages %d..%d): %w", i+1, len(spans), sp.ID, sp.Start, sp.End-1, err)
		}
		results = append(results, r)
	}
	return results, nil
}

func uniqueMsgIDs(prefix string, msgs []OutMessage) error {
	seen := make(map[string]int, len(msgs))
	for i, m := range msgs {
		if j, dup := seen[m.MsgID]; dup && m.MsgID != "" {
			return fmt.Errorf("%w: batches %q: messages %d and %d have the same message id %q; each output needs its own",
				ErrInvalidBatch, prefix, j, i, m.MsgID)
		}
		seen[m.MsgID] = i
	}
	return nil
}
