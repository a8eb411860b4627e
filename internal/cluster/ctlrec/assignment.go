package ctlrec

import (
	"context"
	"fmt"
	"time"

	"github.com/wasmstream/wasmstream/internal/cluster/assign"
	"github.com/wasmstream/wasmstream/internal/cluster/lease"
)

// WriteAssignment stores a under l, fenced: refused (lease.ErrLost) once
// l's holder is no longer coordinator. a must be of l's generation, so
// that workers can tell whose decision it is.
func WriteAssignment(ctx context.Context, l *lease.Lease, a assign.Assignment) error {
	if a.Generation != l.Generation() {
		return fmt.Errorf("%w: assignment %d is of generation %d, the lease's is %d", ErrMismatch, a.Epoch, a.Generation, l.Generation())
	}
	data, err := assign.Encode(a)
	if err != nil {
		return err
	}
	if _, err := l.FencedPut(ctx, assign.Key, data); err != nil {
		return fmt.Errorf("write assignment %d: %w", a.Epoch, err)
	}
	return nil
}

// ReadAssignment reads the assignment through the stream leader;
// lease.ErrNotFound before the first one.
func ReadAssignment(ctx context.Context, b *lease.Bucket) (assign.Assignment, error) {
	a, _, err := ReadAssignmentStored(ctx, b)
	return a, err
}

// ReadAssignmentStored is ReadAssignment that also returns when the
// server stored the assignment: a worker measures from it how long the
// tasks it moved waited to start.
func ReadAssignmentStored(ctx context.Context, b *lease.Bucket) (assign.Assignment, time.Time, error) {
	m, err := b.Get(ctx, assign.Key)
	if err != nil {
		return assign.Assignment{}, time.Time{}, err
	}
	a, err := assign.Decode(m.Data)
	if err != nil {
		return assign.Assignment{}, time.Time{}, fmt.Errorf("bucket %s key %s (revision %d): %w", b.Name(), assign.Key, m.Sequence, err)
	}
	return a, m.Time, nil
}
