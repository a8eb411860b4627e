package worker

import (
	"context"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
)

// shipUnlessGivenUp is ship, cut short once checkpoint t is known to be
// given up: its failure was announced, or a newer checkpoint was
// triggered. A part whose upload hangs on a stream without a leader would
// otherwise keep its engine's checkpoint in progress, and the engine
// refuses every newer trigger until it ends (coordinator.Demanded), for as
// long as the upload retries.
func (pt *part) shipUnlessGivenUp(ctx context.Context, t trigger, m checkpoint.Manifest, db *pebble.DB, tasks map[string][]int) ([]global.TaskPart, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go pt.w.outcomes.cancelWhenGivenUp(ctx, t.Checkpoint, cancel)
	parts, err := pt.ship(ctx, t, m, db, tasks)
	if cause := context.Cause(ctx); err != nil && errors.Is(cause, errAborted) {
		return nil, cause
	}
	return parts, err
}

// triggered records that checkpoint n was triggered. Claims are fenced
// and numbered in order, so a trigger of n means that no checkpoint
// before n completes without the acks it has by now: a worker that has
// not acked one of them can give it up.
func (b *outcomeBoard) triggered(n uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n <= b.newestTrigger {
		return
	}
	b.newestTrigger = n
	close(b.changed)
	b.changed = make(chan struct{})
}

// givenUp says why checkpoint n, not yet acked by this worker, cannot
// complete any more; nil while it can, with a channel closed at the next
// change.
func (b *outcomeBoard) givenUp(n uint64) (<-chan struct{}, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if o, ok := b.known[n]; ok && !o.Completed {
		return b.changed, fmt.Errorf("%w: checkpoint %d: %s", errAborted, n, o.Error)
	}
	if b.newestTrigger > n {
		return b.changed, fmt.Errorf("%w: checkpoint %d: the coordinator has triggered checkpoint %d since", errAborted, n, b.newestTrigger)
	}
	return b.changed, nil
}

// cancelWhenGivenUp cancels with givenUp's reason once n is given up,
// until ctx ends.
func (b *outcomeBoard) cancelWhenGivenUp(ctx context.Context, n uint64, cancel context.CancelCauseFunc) {
	for {
		changed, err := b.givenUp(n)
		if err != nil {
			cancel(err)
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}
