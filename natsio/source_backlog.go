package natsio

import (
	"context"
	"fmt"
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

// taken is the last delivery the pump took from nats.go: the consumer
// and its delivery (consumer) sequence. The pump writes, Backlog reads.
type taken struct {
	last     string // the pump's own copy of consumer: compared without the lock
	mu       sync.Mutex
	consumer string        // changes only when nats.go replaces the consumer
	dseq     atomic.Uint64 // per message: no lock
	// consumers counts the consumers deliveries came from: more than one
	// means nats.go replaced it (a reconnect, a gap, or two missed
	// heartbeats: a 10 s stall).
	consumers atomic.Uint32
}

func (t *taken) record(md *jetstream.MsgMetadata) {
	if t.last != md.Consumer {
		t.last = md.Consumer
		t.mu.Lock()
		t.consumer = md.Consumer
		t.mu.Unlock()
		t.consumers.Add(1)
	}
	t.dseq.Store(md.Sequence.Consumer)
}

func (t *taken) consumerName() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.consumer
}

// Backlog asks the server what is left for the source after stream
// sequence after, the position up to which the caller took and handled
// records. The caller must not hold records fetched after it: everything
// Fetch returned counts as taken.
func (s *Source) Backlog(ctx context.Context, after uint64) (Backlog, error) {
	info, err := s.currentConsumer().Info(ctx)
	if err != nil {
		return Backlog{}, fmt.Errorf("natsio: source stream %s: consumer info for its backlog after sequence %d: %w", s.identity.Stream, after, err)
	}
	b := Backlog{Stream: s.identity.Stream, Consumer: info.Name, After: after, Undelivered: info.NumPending}
	name, dseq := s.taken.consumerName(), s.taken.dseq.Load()
	switch delivered := info.Delivered.Consumer; {
	case delivered == 0: // nothing delivered by this consumer yet
	case name == "": // nothing taken yet
		b.Unfetched = delivered
	case name != info.Name:
		b.Unknown = true
	case delivered > dseq:
		b.Unfetched = delivered - dseq
	}
	b.Unfetched += uint64(len(s.msgs)) + uint64(s.holding.Load())
	return b, nil
}

// Backlog is Source.Backlog for the durable consumer.
func (a *AckingSource) Backlog(ctx context.Context, after uint64) (Backlog, error) {
	return a.src.Backlog(ctx, after)
}
