package worker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/lease"
	"github.com/wasmstream/wasmstream/internal/engine"
)

// outcomeBoard holds the outcomes the coordinator broadcast, for the parts
// that wait in Persist for their checkpoint to complete.
type outcomeBoard struct {
	mu    sync.Mutex
	known map[uint64]outcome
	// newestTrigger is the newest checkpoint triggered (givenup.go).
	newestTrigger uint64
	changed       chan struct{}
}

func newOutcomeBoard() *outcomeBoard {
	return &outcomeBoard{known: map[uint64]outcome{}, changed: make(chan struct{})}
}

// onMessage takes one broadcast outcome.
func (b *outcomeBoard) onMessage(m *nats.Msg) {
	o, err := decode[outcome](m.Data, "checkpoint outcome")
	if err != nil || o.Checkpoint == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.known[o.Checkpoint] = o
	for n := range b.known {
		if n+64 < o.Checkpoint {
			delete(b.known, n) // nobody waits that long behind
		}
	}
	close(b.changed)
	b.changed = make(chan struct{})
}

func (b *outcomeBoard) lookup(n uint64) (outcome, bool, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	o, ok := b.known[n]
	return o, ok, b.changed
}

// errAborted: the coordinator gave the checkpoint up. The part's engine
// does not count it as a failure of its own (engine.ErrGivenUp).
var errAborted = engine.ErrGivenUp

// awaitOutcome waits until checkpoint n completed (nil) or was given up,
// or timeout passed. A broadcast can be lost, so the control bucket is
// read too, through the stream leader: a completion record of n means
// completed; a newer pending claim means n was given up.
func (w *worker) awaitOutcome(ctx context.Context, n uint64, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	poll := time.NewTicker(time.Second)
	defer poll.Stop()
	for {
		o, ok, changed := w.outcomes.lookup(n)
		if ok {
			if o.Completed {
				return nil
			}
			return fmt.Errorf("%w: checkpoint %d: %s", errAborted, n, o.Error)
		}
		select {
		case <-changed:
		case <-poll.C:
			if done, err := w.readOutcome(ctx, n); done || err != nil {
				return err
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%w: checkpoint %d: no outcome from the coordinator within %s", errAborted, n, timeout)
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// readOutcome looks for n's outcome in the control bucket.
func (w *worker) readOutcome(ctx context.Context, n uint64) (bool, error) {
	if _, err := ctlrec.ReadCompleted(ctx, w.bucket, n); err == nil {
		return true, nil
	}
	p, err := ctlrec.ReadPending(ctx, w.bucket)
	if err == nil && p.Checkpoint > n {
		return true, fmt.Errorf("%w: checkpoint %d: checkpoint %d was claimed after it", errAborted, n, p.Checkpoint)
	}
	if err != nil && !errors.Is(err, lease.ErrNotFound) {
		w.log.Debug("reading the pending checkpoint", "error", err)
	}
	return false, nil
}
