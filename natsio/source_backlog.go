package natsio

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/nats-io/nats.go/jetstream"
)

// Backlog is what is left for a source to read after a position: what
// its consumer has not delivered yet, and what it delivered to this
// process that was not taken by Fetch.
type Backlog struct {
	Stream   string
	Consumer string // the consumer asked (an ordered source's current one)
	After    uint64 // the position asked about: records up to it were taken
	// Undelivered counts the records the consumer has not delivered yet
	// (its num_pending), Unfetched those it delivered that no Fetch has
	// returned yet (in nats.go's buffer or the source's).
	Undelivered uint64
	Unfetched   uint64
	// Unknown: the consumer was replaced between the delivery last taken
	// and the question (an ordered consumer's reset), so Unfetched could
	// not be counted. Ask again.
	Unknown bool
}

// Empty reports whether nothing is left: every record the stream holds
// for the source was delivered and taken.
func (b Backlog) Empty() bool { return !b.Unknown && b.Undelivered == 0 && b.Unfetched == 0 }

func (b Backlog) String() string {
	if b.Unknown {
		return fmt.Sprintf("stream %s: consumer %s replaced while asked; backlog after sequence %d unknown", b.Stream, b.Consumer, b.After)
	}
	return fmt.Sprintf("stream %s: %d records not delivered yet and %d delivered but not processed, after sequence %d (consumer %s)",
		b.Stream, b.Undelivered, b.Unfetched, b.After, b.Consumer)
}

// taken is what the pump took from nats.go: the consumer and delivery
// (consumer) sequence of the last delivery, and how many deliveries were
// taken and not handed out by Fetch (nor dropped) yet. The pump writes,
// Fetch hands out, Backlog reads all three as one snapshot: version is
// odd while the pump changes them (a sequence lock; no lock per message),
// so a delivery is counted once whether it sits in nats.go's buffer, in
// the pump's hands or in the source's.
type taken struct {
	last     string // the pump's own copy of consumer: compared without the lock
	mu       sync.Mutex
	consumer string        // changes only when nats.go replaces the consumer
	version  atomic.Uint64 // odd while record runs
	dseq     atomic.Uint64
	queued   atomic.Int64 // taken, not handed out or dropped yet
	// consumers counts the consumers deliveries came from: more than one
	// means nats.go replaced it (a reconnect, a gap, or two missed
	// heartbeats: a 10 s stall).
	consumers atomic.Uint32
}

func (t *taken) record(md *jetstream.MsgMetadata) {
	t.version.Add(1)
	if t.last != md.Consumer {
		t.last = md.Consumer
		t.mu.Lock()
		t.consumer = md.Consumer
		t.mu.Unlock()
		t.consumers.Add(1)
	}
	t.dseq.Store(md.Sequence.Consumer)
	t.queued.Add(1)
	t.version.Add(1)
}

// handed notes n taken deliveries handed out by Fetch or dropped.
func (t *taken) handed(n int) { t.queued.Add(-int64(n)) }

// takenSnapshot is taken's state at one moment.
type takenSnapshot struct {
	consumer string
	dseq     uint64
	queued   uint64
}

// snapshot reads the consumer, the last delivery sequence and the queued
// count as of one moment between two records.
func (t *taken) snapshot() takenSnapshot {
	for {
		v := t.version.Load()
		if v%2 == 1 {
			runtime.Gosched()
			continue
		}
		t.mu.Lock()
		name := t.consumer
		t.mu.Unlock()
		snap := takenSnapshot{consumer: name, dseq: t.dseq.Load(), queued: uint64(max(t.queued.Load(), 0))}
		if t.version.Load() == v {
			return snap
		}
	}
}

// Backlog asks the server what is left for the source after stream
// sequence after, the position up to which the caller took and handled
// records. The caller must not hold records fetched after it: everything
// Fetch returned counts as taken. What was taken is read before the
// server is asked: a delivery taken after that is then counted by the
// server's delivered count, not twice. A Fetch running at the same time
// (a metrics scrape) may make the count high by what it hands out.
func (s *Source) Backlog(ctx context.Context, after uint64) (Backlog, error) {
	snap := s.taken.snapshot()
	info, err := s.currentConsumer().Info(ctx)
	if err != nil {
		return Backlog{}, fmt.Errorf("natsio: source stream %s: consumer info for its backlog after sequence %d: %w", s.identity.Stream, after, err)
	}
	b := Backlog{Stream: s.identity.Stream, Consumer: info.Name, After: after, Undelivered: info.NumPending}
	switch delivered := info.Delivered.Consumer; {
	case delivered == 0: // nothing delivered by this consumer yet
	case snap.consumer == "": // nothing taken yet
		b.Unfetched = delivered
	case snap.consumer != info.Name:
		b.Unknown = true
	case delivered > snap.dseq:
		b.Unfetched = delivered - snap.dseq
	}
	b.Unfetched += snap.queued
	return b, nil
}

// Backlog is Source.Backlog for the durable consumer.
func (a *AckingSource) Backlog(ctx context.Context, after uint64) (Backlog, error) {
	return a.src.Backlog(ctx, after)
}
