package member

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/cluster/lease"
)

// Watcher feeds a Tracker from NATS: membership leases from a watch of
// the bucket's workers.* keys, heartbeats from their subject. Times are
// this process's receive times, so the workers' clocks do not matter.
type Watcher struct {
	mu      sync.Mutex
	tracker *Tracker

	sub    *nats.Subscription
	keys   jetstream.KeyWatcher
	cancel context.CancelFunc
	done   chan struct{}
}

// Watch starts watching pipeline's members in b; a member is suspected
// after timeout without a heartbeat. Stop ends it.
func Watch(ctx context.Context, b *lease.Bucket, nc *nats.Conn, pipeline string, timeout time.Duration) (*Watcher, error) {
	w := &Watcher{tracker: NewTracker(timeout), done: make(chan struct{})}
	sub, err := nc.Subscribe(HeartbeatSubject(pipeline, "*"), w.onHeartbeat)
	if err != nil {
		return nil, fmt.Errorf("watch the heartbeats of pipeline %q: %w", pipeline, err)
	}
	w.sub = sub
	wctx, cancel := context.WithCancel(context.Background())
	keys, err := b.KV().Watch(wctx, Key("*"))
	if err != nil {
		cancel()
		_ = sub.Unsubscribe()
		return nil, fmt.Errorf("watch the members of pipeline %q in bucket %s: %w", pipeline, b.Name(), err)
	}
	w.keys, w.cancel = keys, cancel
	go w.follow()
	return w, nil
}

func (w *Watcher) onHeartbeat(m *nats.Msg) {
	id := m.Subject[strings.LastIndexByte(m.Subject, '.')+1:]
	var hb heartbeat
	_ = json.Unmarshal(m.Data, &hb) // an unreadable body still shows the worker alive
	w.mu.Lock()
	defer w.mu.Unlock()
	w.tracker.Heard(id, time.Now(), hb.Leaving)
}

// follow applies the lease updates until Stop. A nil entry marks the end
// of the initial values and carries nothing.
func (w *Watcher) follow() {
	defer close(w.done)
	for e := range w.keys.Updates() {
		if e != nil {
			w.apply(e)
		}
	}
}

func (w *Watcher) apply(e jetstream.KeyValueEntry) {
	id := strings.TrimPrefix(e.Key(), Key(""))
	w.mu.Lock()
	defer w.mu.Unlock()
	if e.Operation() == jetstream.KeyValuePut {
		w.tracker.Joined(id, time.Now())
		return
	}
	w.tracker.Left(id) // delete, purge, or the marker of an expired TTL
}

// View says who is alive and who is suspected now.
func (w *Watcher) View() View {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.tracker.View(time.Now())
}

// Stop ends the watch.
func (w *Watcher) Stop() {
	_ = w.sub.Unsubscribe()
	_ = w.keys.Stop()
	w.cancel()
	<-w.done
}
