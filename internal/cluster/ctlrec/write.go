package ctlrec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wasmstream/wasmstream/internal/cluster/lease"
)

// ErrMismatch: a record that does not belong to the writer: a completion
// of another checkpoint than the one pending or of another generation, an
// assignment of another generation than the lease's.
var ErrMismatch = errors.New("control record does not match the coordinator's lease or claim")

// Claim claims the next checkpoint for assignment epoch under l: its N
// follows every checkpoint claimed or completed before (read through the
// stream leader). A refused write is lease.ErrLost: l's holder is no
// longer coordinator and must step down.
func Claim(ctx context.Context, b *lease.Bucket, l *lease.Lease, assignment uint64, final bool) (Pending, error) {
	return ClaimAtLeast(ctx, b, l, assignment, final, 1)
}

// ClaimAtLeast is Claim with an N of at least least: a checkpoint seeded
// from a savepoint takes the savepoint's id or more, so that the epochs
// of the transactional outputs staged in it are never above its N.
func ClaimAtLeast(ctx context.Context, b *lease.Bucket, l *lease.Lease, assignment uint64, final bool, least uint64) (Pending, error) {
	last, err := lastClaimed(ctx, b)
	if err != nil {
		return Pending{}, err
	}
	p := Pending{Version: Version, Checkpoint: max(last+1, least), Generation: l.Generation(), Assignment: assignment, Final: final}
	if err := put(ctx, l, PendingKey, p); err != nil {
		return Pending{}, fmt.Errorf("claim checkpoint %d: %w", p.Checkpoint, err)
	}
	return p, nil
}

// lastClaimed is the highest N pending or completed, 0 for none. The
// pending claim is never behind a completion (a checkpoint is claimed
// before it completes), but latest is read too in case the claim record
// was removed by hand.
func lastClaimed(ctx context.Context, b *lease.Bucket) (uint64, error) {
	c, err := Latest(ctx, b)
	if err != nil && !errors.Is(err, lease.ErrNotFound) {
		return 0, err
	}
	p, err := ReadPending(ctx, b)
	if err != nil && !errors.Is(err, lease.ErrNotFound) {
		return 0, err
	}
	return max(c.Checkpoint, p.Checkpoint), nil
}

// Complete records checkpoint c as completed under l: first
// checkpoint.<N> (the commit point), then checkpoint.latest. c must be the
// pending claim p of l's generation.
func Complete(ctx context.Context, l *lease.Lease, p Pending, c Completed) error {
	c.Version = Version
	if c.Checkpoint != p.Checkpoint || c.Generation != l.Generation() || p.Generation != l.Generation() || c.Assignment != p.Assignment {
		return fmt.Errorf("%w: completing checkpoint %d (generation %d, assignment %d), pending is %d (generation %d, assignment %d), lease generation %d",
			ErrMismatch, c.Checkpoint, c.Generation, c.Assignment, p.Checkpoint, p.Generation, p.Assignment, l.Generation())
	}
	if err := c.check(); err != nil {
		return err
	}
	if err := put(ctx, l, CompletedKey(c.Checkpoint), c); err != nil {
		return fmt.Errorf("complete checkpoint %d: %w", c.Checkpoint, err)
	}
	if err := put(ctx, l, LatestKey, c); err != nil {
		return fmt.Errorf("checkpoint %d is complete, but checkpoint.latest was not updated: %w", c.Checkpoint, err)
	}
	return nil
}

func put(ctx context.Context, l *lease.Lease, key string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = l.FencedPut(ctx, key, data)
	return err
}
