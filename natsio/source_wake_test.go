package natsio

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats.go/jetstream"
)

// stuckIterator plays nats.go's iterator after the lost wake-up: Next
// waits for nothing but its context (no pull request is outstanding, so
// nothing comes), and a Next called again would issue the request.
type stuckIterator struct {
	jetstream.MessagesContext
	src     *Source
	calls   atomic.Int32
	stopped chan struct{}
}

func (it *stuckIterator) Next(...jetstream.NextOpt) (jetstream.Msg, error) {
	it.calls.Add(1)
	it.src.waker.mu.Lock()
	ctx := it.src.waker.ctx
	it.src.waker.mu.Unlock()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-it.stopped:
		return nil, jetstream.ErrMsgIteratorClosed
	}
}

func (it *stuckIterator) Stop() { close(it.stopped) }

// waitingConsumer answers Info with a fixed number of waiting pull
// requests and 5 records pending.
type waitingConsumer struct {
	jetstream.Consumer
	waiting  int
	asked    atomic.Int32
	restarts atomic.Int32
	src      *Source
}

// Messages gives a restarted source another stuck iterator.
func (c *waitingConsumer) Messages(...jetstream.PullMessagesOpt) (jetstream.MessagesContext, error) {
	c.restarts.Add(1)
	return &stuckIterator{src: c.src, stopped: make(chan struct{})}, nil
}

func (c *waitingConsumer) Info(context.Context) (*jetstream.ConsumerInfo, error) {
	c.asked.Add(1)
	return &jetstream.ConsumerInfo{Name: "c", NumWaiting: c.waiting, NumPending: 5}, nil
}

// startStuck runs a source's pump and watcher on a stuck iterator and a
// consumer with waiting pull requests, looking every 10 ms.
func startStuck(t *testing.T, waiting int) (*Source, *stuckIterator, *waitingConsumer) {
	cons := &waitingConsumer{waiting: waiting}
	it := &stuckIterator{stopped: make(chan struct{})}
	s := newSource(nil, StreamIdentity{Stream: "S"}, cons, it, hclog.NewNullLogger())
	s.interval = time.Hour // no identity checks
	s.wakeInterval = 10 * time.Millisecond
	it.src, cons.src = s, s
	go s.pump()
	go s.watch()
	t.Cleanup(s.Close)
	return s, it, cons
}

// TestWakeEndsAForgottenWait: a pump that waits in Next while the server
// holds no pull request for its consumer is woken and calls Next again
// (where nats.go issues the request it skipped); when that did not help,
// a second wake replaces the iterator; then the wait is left to nats.go's
// heartbeat recovery.
func TestWakeEndsAForgottenWait(t *testing.T) {
	s, it, cons := startStuck(t, 0)
	deadline := time.Now().Add(testTimeout)
	for s.Wakes() < 2 || cons.restarts.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no second wake within %s: wakes %d, Next calls %d, restarts %d", testTimeout, s.Wakes(), it.calls.Load(), cons.restarts.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // ten more ticks of the same wait
	if s.Wakes() != 2 || it.calls.Load() != 2 || cons.restarts.Load() != 1 || cons.asked.Load() != 2 {
		t.Fatalf("wakes %d, Next calls on the first iterator %d, restarts %d, checks %d: want 2, 2, 1 and 2",
			s.Wakes(), it.calls.Load(), cons.restarts.Load(), cons.asked.Load())
	}
}

// TestWakeLeavesAWaitingConsumer: with a pull request outstanding the
// wait is nats.go's own (an idle stream), and nothing wakes it.
func TestWakeLeavesAWaitingConsumer(t *testing.T) {
	s, it, cons := startStuck(t, 1)
	deadline := time.Now().Add(testTimeout)
	for cons.asked.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // several more ticks
	if cons.asked.Load() != 1 || s.Wakes() != 0 || it.calls.Load() != 1 {
		t.Fatalf("asked %d, wakes %d, Next calls %d: want one check, no wake", cons.asked.Load(), s.Wakes(), it.calls.Load())
	}
}

// TestRestartedIteratorOfARealSourceGoesOn: replacing the iterator of a
// real ordered consumer (a wake that did not help) keeps delivering every
// sequence once and in order. An ordered consumer refuses a second
// iterator for its lifetime, so the first version of restartIterator,
// which asked the same consumer again, failed the source ("cannot run
// concurrent processing using ordered consumer") and with it a worker's
// tasks, which then restarted from the last checkpoint.
func TestRestartedIteratorOfARealSourceGoesOn(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "S", "s.>")
	publishMany(t, c, "s.x", 100)
	s, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "S"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	got := fetchN(t, s, 100)
	deadline := time.Now().Add(testTimeout)
	for !s.waker.inNext.Load() { // the pump waits for more in Next
		if time.Now().After(deadline) {
			t.Fatal("the pump never waited in Next")
		}
		time.Sleep(time.Millisecond)
	}
	s.waker.restart.Store(true)
	s.waker.wake()
	for s.waker.restarts.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the iterator was not replaced")
		}
		time.Sleep(time.Millisecond)
	}
	publishMany(t, c, "s.x", 100)
	got = append(got, fetchN(t, s, 100)...)
	for i, m := range got {
		if m.Sequence != uint64(i+1) {
			t.Fatalf("message %d has sequence %d, want %d", i, m.Sequence, i+1)
		}
	}
}
