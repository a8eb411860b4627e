package natsio

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// A lost wake-up in nats.go v1.55.0's pull iterator (jetstream/pull.go):
// MessagesContext.Next asks the server for more (checkPending) only when
// something arrives, and skips the request while the previous pull
// request is still being published. When every check of a batch is skipped
// that way, no request is outstanding and Next waits until two idle
// heartbeats are missed (10 s), after which the ordered consumer starts
// over: records wait in the stream meanwhile (issue 18; the sources' own
// connection, sourceconn.go, makes it rare). The wake-up below supplies the
// missing check: when the pump has waited inside Next for a while, the
// watcher asks the server whether the consumer holds a pull request, and
// if not, ends that Next through its context; the pump calls Next again,
// and Next's first step is the check that issues the request.
//
// A consumer with a request outstanding is never woken, so nats.go's own
// missed-heartbeat recovery keeps working. A wake that did not help (the
// next check still finds no request: nats.go believes one is outstanding
// that the server does not hold) is followed by a wake that replaces the
// iterator (restartIterator). The cost: one consumer info request per wait
// longer than wakeCheckInterval, two more while a pump is stuck.

// wakeCheckInterval is how often the watcher looks at a waiting pump. A
// pump that received nothing for a whole interval is checked, once per
// wait: one consumer info request per idle period.
const wakeCheckInterval = 500 * time.Millisecond

// wakeCheckTimeout bounds the consumer info request of a check.
const wakeCheckTimeout = 5 * time.Second

// waker lets the watcher end the pump's wait in Next.
type waker struct {
	inNext   atomic.Bool   // the pump waits in Next
	received atomic.Uint64 // messages Next returned
	wakes    atomic.Uint64 // waits ended by the watcher

	mu     sync.Mutex
	ctx    context.Context    // the current opts' context
	cancel context.CancelFunc // ends it
	opts   []jetstream.NextOpt
	woken  bool // a wake ended the current context

	// restart asks the pump to replace its iterator before its next Next.
	restart  atomic.Bool
	restarts atomic.Uint64 // iterators replaced

	// Watcher only: received at its last look, whether the current wait
	// (no message since) was checked already, and the wakes in it.
	seen       uint64
	checked    bool
	stuckWakes int
}

// nextOpts returns the options of the pump's next Next call: a context
// the watcher can cancel, made anew after a wake. Reused across calls, so
// a message costs no allocation here.
func (w *waker) nextOpts() []jetstream.NextOpt {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.opts == nil || w.woken {
		ctx, cancel := context.WithCancel(context.Background())
		w.ctx, w.cancel, w.opts, w.woken = ctx, cancel, []jetstream.NextOpt{jetstream.NextContext(ctx)}, false
	}
	return w.opts
}

// wake ends the pump's current wait in Next.
func (w *waker) wake() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cancel != nil && !w.woken {
		w.woken = true
		w.cancel()
		w.wakes.Add(1)
	}
}

// stop releases the current context.
func (w *waker) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cancel != nil {
		w.cancel()
	}
}

// next is iter.Next, called again when the watcher woke it.
func (s *Source) next() (jetstream.Msg, error) {
	for {
		opts := s.waker.nextOpts()
		s.waker.inNext.Store(true)
		msg, err := s.iter.Next(opts...)
		s.waker.inNext.Store(false)
		if err == nil {
			s.waker.received.Add(1)
			return msg, nil
		}
		if !errors.Is(err, context.Canceled) {
			return nil, err
		}
		// Only the watcher cancels this context; Next issues the pull
		// request it skipped as soon as it is called again, unless the
		// watcher found it stuck after a wake already.
		if s.waker.restart.Swap(false) {
			if err := s.restartIterator(); err != nil {
				return nil, err
			}
		}
	}
}

// restartIterator replaces the pump's iterator: nats.go's pull iterator
// can believe a pull request is outstanding that the server does not hold
// (seen right after a worker started a consumer on a cluster), and then a
// wake does not make it ask again. An ordered consumer allows one iterator
// for its lifetime (a second Messages fails with "cannot run concurrent
// processing using ordered consumer", even after Stop), so a new ordered
// consumer is made that delivers from the sequence after the last one
// the pump took: what the old iterator held but had not handed over
// comes again, nothing twice.
func (s *Source) restartIterator() error {
	s.iterMu.Lock()
	defer s.iterMu.Unlock()
	select {
	case <-s.stop:
		return jetstream.ErrMsgIteratorClosed
	default:
	}
	s.iter.Stop()
	cons, iter, err := s.reopenFrom(s.last + 1)
	if err != nil {
		return fmt.Errorf("restart the source's iterator: %w", err)
	}
	s.cons, s.iter = cons, iter
	s.waker.restarts.Add(1)
	s.log.Warn("source iterator restarted: still no pull request outstanding after a wake", "stream", s.identity.Stream, "from_sequence", s.last+1)
	return nil
}

// reopenFrom makes a new consumer and iterator from sequence from on.
func (s *Source) reopenFrom(from uint64) (jetstream.Consumer, jetstream.MessagesContext, error) {
	if s.reopen == nil {
		iter, err := s.cons.Messages(jetstream.PullMaxMessages(sourcePullBatch))
		return s.cons, iter, err
	}
	ctx, cancel := context.WithTimeout(s.ctx, wakeCheckTimeout)
	defer cancel()
	return s.reopen(ctx, from)
}

// currentConsumer is the source's consumer (restartIterator replaces it).
func (s *Source) currentConsumer() jetstream.Consumer {
	s.iterMu.Lock()
	defer s.iterMu.Unlock()
	return s.cons
}

// checkWake wakes a pump that has waited in Next since the last check
// while the server holds no pull request for its consumer. A failed
// request is no verdict: nats.go's heartbeats still cover the wait.
func (s *Source) checkWake() {
	w := &s.waker
	received := w.received.Load()
	if !w.inNext.Load() || received != w.seen {
		w.seen, w.checked, w.stuckWakes = received, false, 0
		return
	}
	if w.checked {
		return // one check per wait, unless a wake did not help
	}
	w.checked = true
	ctx, cancel := context.WithTimeout(s.ctx, wakeCheckTimeout)
	info, err := s.currentConsumer().Info(ctx)
	cancel()
	if err != nil || info.NumWaiting > 0 || !w.inNext.Load() || w.received.Load() != received {
		return
	}
	// A second wake in one wait replaces the iterator, and the next
	// interval checks again after the first; a third is left to nats.go's
	// heartbeat recovery, so a consumer stuck for another reason does not
	// get a new iterator every second.
	switch w.stuckWakes {
	case 0:
		w.checked = false
	case 1:
		w.restart.Store(true)
	default:
		return
	}
	w.stuckWakes++
	w.wake()
	s.log.Warn("source consumer had no pull request outstanding; woke it (nats.go lost wake-up, see natsio/source_wake.go)",
		"stream", s.identity.Stream, "consumer", info.Name, "records_waiting", info.NumPending, "after_sequence", info.Delivered.Stream)
}

// Wakes counts the waits in Next that the watcher ended because the
// server held no pull request for the source (see source_wake.go).
func (s *Source) Wakes() uint64 { return s.waker.wakes.Load() }
