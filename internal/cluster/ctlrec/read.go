package ctlrec

import (
	"context"
	"errors"
	"fmt"

	"github.com/wasmstream/wasmstream/internal/cluster/lease"
)

// ReadPending reads the pending claim through the stream leader;
// lease.ErrNotFound when none was ever made.
func ReadPending(ctx context.Context, b *lease.Bucket) (Pending, error) {
	m, err := b.Get(ctx, PendingKey)
	if err != nil {
		return Pending{}, err
	}
	p, err := DecodePending(m.Data)
	if err != nil {
		return Pending{}, fmt.Errorf("bucket %s key %s (revision %d): %w", b.Name(), PendingKey, m.Sequence, err)
	}
	return p, nil
}

// ReadCompleted reads checkpoint n's completion record.
func ReadCompleted(ctx context.Context, b *lease.Bucket, n uint64) (Completed, error) {
	return readCompleted(ctx, b, CompletedKey(n))
}

// Latest returns the newest completed checkpoint: checkpoint.latest, or a
// checkpoint.<N> after it up to the pending claim, which a coordinator
// wrote before it died without updating latest (aborted claims leave
// gaps, hence the scan up to the claim). lease.ErrNotFound when none
// completed.
func Latest(ctx context.Context, b *lease.Bucket) (Completed, error) {
	c, err := readCompleted(ctx, b, LatestKey)
	if err != nil && !errors.Is(err, lease.ErrNotFound) {
		return Completed{}, err
	}
	p, err := ReadPending(ctx, b)
	if err != nil && !errors.Is(err, lease.ErrNotFound) {
		return Completed{}, err
	}
	for n := c.Checkpoint + 1; n <= p.Checkpoint; n++ { // c and p are zero when never written
		next, err := ReadCompleted(ctx, b, n)
		if errors.Is(err, lease.ErrNotFound) {
			continue
		}
		if err != nil {
			return Completed{}, err
		}
		c = next
	}
	if c.Checkpoint == 0 {
		return Completed{}, fmt.Errorf("%w: no checkpoint completed in bucket %s", lease.ErrNotFound, b.Name())
	}
	return c, nil
}

func readCompleted(ctx context.Context, b *lease.Bucket, key string) (Completed, error) {
	m, err := b.Get(ctx, key)
	if err != nil {
		return Completed{}, err
	}
	c, err := DecodeCompleted(m.Data)
	if err != nil {
		return Completed{}, fmt.Errorf("bucket %s key %s (revision %d): %w", b.Name(), key, m.Sequence, err)
	}
	return c, nil
}
