package worker

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/wasmstream/wasmstream/internal/cluster/member"
)

// fence holds a part's outputs back unless the part's tasks were
// confirmed as this worker's recently: a worker that was frozen, or cut
// off, past the time the coordinator needs to give its tasks to others
// must not publish one more output, or a result of its stale state could
// be stored before the new owner's and win the deduplication (the
// frozen-coordinator acceptance test stored such outputs).
//
// The coordinator reassigns a worker's tasks no earlier than
// worker_timeout + stabilization after the last heartbeat it received,
// and heartbeats go out every member.HeartbeatInterval. A read of the
// assignment sent at t that still gives the part its tasks therefore
// lets it publish until t + window (confirmWindow), on the monotonic
// clock, which keeps running while the process is stopped. Past that the
// outputs wait for the next confirmation; a new assignment stops the part.
type fence struct {
	mu      sync.Mutex
	until   time.Time
	changed chan struct{}
	stopped bool
}

func newFence() *fence { return &fence{changed: make(chan struct{})} }

// errFenced: the part was stopped while its outputs waited.
var errFenced = errors.New("outputs held back: this worker's tasks were not confirmed by the assignment in time, and the tasks are stopping")

// confirmWindow is how long a confirmation lets the part publish: half the
// least time the coordinator needs to reassign, less a heartbeat.
func confirmWindow(workerTimeout, stabilization time.Duration) time.Duration {
	return max((workerTimeout+stabilization-member.HeartbeatInterval)/2, 250*time.Millisecond)
}

// confirm lets the part publish until until.
func (f *fence) confirm(until time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if until.After(f.until) {
		f.until = until
		close(f.changed)
		f.changed = make(chan struct{})
	}
}

// stop ends every wait with errFenced.
func (f *fence) stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.stopped {
		f.stopped = true
		close(f.changed)
	}
}

// wait returns once the part may publish: at once while confirmed; else
// after asking for a confirmation (ask), when one arrives.
func (f *fence) wait(ctx context.Context, ask func()) error {
	for {
		f.mu.Lock()
		open, stopped, changed := time.Now().Before(f.until), f.stopped, f.changed
		f.mu.Unlock()
		switch {
		case stopped:
			return errFenced
		case open:
			return nil
		}
		ask()
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
