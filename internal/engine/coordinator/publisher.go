package coordinator

import (
	"context"
	"sync"

	"github.com/wasmstream/wasmstream/internal/protocol"
)

// publisher runs the core's Publish actions off the driver's goroutine:
// the loop keeps stepping the core (reports of the next checkpoint,
// triggers, ticks) while atomic batches are committed, and steps the
// outcome when it arrives on Published. The core asks for one publication
// at a time, so there is at most one goroutine.
type publisher struct {
	outcome chan protocol.Event
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	// running: a publication was started and its outcome not yet stepped
	// (the driver's goroutine only).
	running bool
}

func newPublisher() publisher {
	ctx, cancel := context.WithCancel(context.Background())
	return publisher{outcome: make(chan protocol.Event, 1), ctx: ctx, cancel: cancel}
}

// start runs publish in its own goroutine; its outcome arrives on outcome
// unless Close ended it first.
func (p *publisher) start(publish func(context.Context) protocol.Published) {
	p.running = true
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		ev := publish(p.ctx)
		select {
		case p.outcome <- ev:
		case <-p.ctx.Done():
		}
	}()
}

// Published is the channel the loop receives the outcome of a publication
// on, to hand it to Step.
func (d *Driver) Published() <-chan protocol.Event { return d.publisher.outcome }

// Close ends a publication in progress and waits for its goroutine: a run
// that stops (failed, or a cluster part abandoned) must not publish from a
// store it closes. What it did not publish stays staged in the completed
// checkpoints, and the next restore publishes it.
func (d *Driver) Close() {
	d.publisher.cancel()
	d.publisher.wg.Wait()
}
