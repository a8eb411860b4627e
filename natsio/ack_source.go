package natsio

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// AckingSource defaults.
const (
	// DefaultAckWait is how long the server waits for an acknowledgement
	// before delivering a message again. It must exceed the time from a
	// delivery to the completion of the checkpoint that covers it;
	// redeliveries are dropped by the source, so a short one costs
	// bandwidth, never correctness.
	DefaultAckWait = 30 * time.Minute
	// DefaultMaxAckPending bounds delivered, unacknowledged messages. While
	// it is reached the server delivers nothing until a checkpoint
	// completes and AckThrough frees room. The source keeps each one's
	// reply subject (about 100 bytes), so this also bounds its memory.
	DefaultMaxAckPending = 1 << 20
)

// ErrDeliveryLost reports a delivery the AckingSource never received: the
// consumer sequence jumped. Another client reads from the same durable, or
// deliveries were lost across a reconnect. Reopen the source at the last
// checkpoint; nothing is skipped silently.
var ErrDeliveryLost = errors.New("natsio: consumer delivery lost")

// ErrNeedsNoAcks reports an AckingSource asked for on a stream with Limits
// retention, where nothing needs acknowledging: use OpenSource.
var ErrNeedsNoAcks = errors.New("natsio: stream needs no acknowledgements")

// AckingSourceSpec says what an AckingSource reads.
type AckingSourceSpec struct {
	Stream string
	// Durable names the server-side consumer; one per pipeline source,
	// kept across restarts. Required.
	Durable       string
	FilterSubject string // "" = all subjects of the stream
	// StartSequence is the first sequence to deliver: the checkpointed
	// position + 1. Messages before it that the durable has not
	// acknowledged (a crash between checkpoint and acknowledgement) are
	// acknowledged without being delivered. 0 means wherever the durable
	// stands (a new durable: the stream's first message).
	StartSequence uint64
	// AllowGap accepts messages that are gone before they were read, as
	// SourceSpec.AllowGap does.
	AllowGap bool
	// AcceptGapsThrough and StreamCreated are SourceSpec's.
	AcceptGapsThrough uint64
	StreamCreated     time.Time
	AckWait           time.Duration // 0 = DefaultAckWait
	MaxAckPending     int           // 0 = DefaultMaxAckPending
}

// AckingSource reads a stream whose retention needs acknowledgements
// (WorkQueue, Interest) through a durable pull consumer, and acknowledges
// only what the engine says a completed checkpoint covers (AckThrough).
// Delivery is in stream order; redeliveries of messages already delivered
// are dropped, so each stream sequence reaches Fetch at most once per
// AckingSource. Fetch, Identity and Close behave as Source's.
//
// WorkQueue streams require explicit acknowledgements (the server refuses
// AckAll there), so AckThrough sends one per message; Interest streams use
// AckAll, one per call.
type AckingSource struct {
	src       *Source // Fetch buffer, stop/done, identity; its pump is not used
	nc        *nats.Conn
	spec      AckingSourceSpec
	policy    jetstream.AckPolicy
	skipTo    uint64 // sequences <= skipTo are acknowledged, not delivered
	checkGaps bool   // unfiltered and !AllowGap
	lastSeq   uint64 // pump only: last stream sequence delivered
	lastDel   uint64 // pump only: last consumer (delivery) sequence seen

	ackMu   sync.Mutex   // serialises AckThrough: each forgets what it acknowledged
	mu      sync.Mutex   // guards pending between the pump and AckThrough
	pending []pendingAck // delivered, not acknowledged, ascending seq
}

// pendingAck is what acknowledging one delivered message needs.
type pendingAck struct {
	seq   uint64
	reply string
}

// OpenAckingSource creates or updates the durable consumer, moves its
// delivery back to its acknowledgement floor (what an earlier process had
// delivered but not acknowledged is delivered again now, not after
// AckWait) and starts reading.
//
// It fails with ErrSequenceGap, unless AllowGap, when the durable already
// acknowledged sequences at or after StartSequence (they may be gone: was
// an older checkpoint restored?), when the stream lost messages from
// StartSequence on (unfiltered), or when StartSequence lies beyond the end
// of the stream (the stream was created again). It needs a server with the
// consumer reset API ($JS.API.CONSUMER.RESET, present in the embedded
// nats-server v2.15.2; older servers answer with an error).
func (c *Conn) OpenAckingSource(ctx context.Context, spec AckingSourceSpec) (*AckingSource, error) {
	if err := spec.validate(); err != nil {
		return nil, err
	}
	js, nc, err := c.sourceJS(ctx)
	if err != nil {
		return nil, err
	}
	st, policy, err := ackingStream(ctx, js, spec)
	if err != nil {
		return nil, err
	}
	if err := checkCreated(spec.Stream, spec.StreamCreated, st.CachedInfo().Created); err != nil {
		return nil, err
	}
	cons, err := st.CreateOrUpdateConsumer(ctx, spec.consumerConfig(policy))
	if err != nil {
		return nil, fmt.Errorf("natsio: durable consumer %s on stream %s: %w", spec.Durable, spec.Stream, err)
	}
	skipTo, err := c.rewindConsumer(ctx, st, spec)
	if err != nil {
		return nil, err
	}
	iter, err := cons.Messages(jetstream.PullMaxMessages(sourcePullBatch))
	if err != nil {
		return nil, fmt.Errorf("natsio: durable consumer %s on stream %s: %w", spec.Durable, spec.Stream, err)
	}
	a := c.newAckingSource(spec, policy, st, cons, iter, skipTo)
	a.nc = nc // acknowledgements go out where the deliveries come in
	go a.pump()
	go a.src.watch()
	return a, nil
}

func (c *Conn) newAckingSource(spec AckingSourceSpec, policy jetstream.AckPolicy, st jetstream.Stream,
	cons jetstream.Consumer, iter jetstream.MessagesContext, skipTo uint64) *AckingSource {
	return &AckingSource{
		src:       newSource(st, StreamIdentity{Stream: spec.Stream, Created: st.CachedInfo().Created}, cons, iter, c.log),
		spec:      spec,
		policy:    policy,
		skipTo:    skipTo,
		checkGaps: spec.FilterSubject == "" && !spec.AllowGap,
		lastSeq:   skipTo,
	}
}

func (spec AckingSourceSpec) validate() error {
	if err := (SourceSpec{Stream: spec.Stream, FilterSubject: spec.FilterSubject}).validate(); err != nil {
		return err
	}
	if !validStreamName(spec.Durable) {
		return fmt.Errorf("%w: source stream %s: durable consumer name %q must be non-empty without spaces, '.', '*', '>', '/' or '\\'",
			ErrInvalidStreamSpec, spec.Stream, spec.Durable)
	}
	if spec.AckWait < 0 || spec.MaxAckPending < 0 {
		return fmt.Errorf("%w: source stream %s: negative ack wait %s or max ack pending %d", ErrInvalidStreamSpec, spec.Stream, spec.AckWait, spec.MaxAckPending)
	}
	return nil
}

func (spec AckingSourceSpec) consumerConfig(policy jetstream.AckPolicy) jetstream.ConsumerConfig {
	cfg := jetstream.ConsumerConfig{
		Durable: spec.Durable,
		// DeliverAll: WorkQueue streams require it, and it lets the
		// consumer be reset to any sequence.
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     policy,
		AckWait:       spec.AckWait,
		MaxAckPending: spec.MaxAckPending,
		MaxDeliver:    -1,
		FilterSubject: spec.FilterSubject,
	}
	if cfg.AckWait == 0 {
		cfg.AckWait = DefaultAckWait
	}
	if cfg.MaxAckPending == 0 {
		cfg.MaxAckPending = DefaultMaxAckPending
	}
	return cfg
}

// ackingStream looks the stream up and picks the acknowledgement policy its
// retention allows.
func ackingStream(ctx context.Context, js jetstream.JetStream, spec AckingSourceSpec) (jetstream.Stream, jetstream.AckPolicy, error) {
	st, err := js.Stream(ctx, spec.Stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, 0, fmt.Errorf("%w: source stream %s does not exist; declare it or publish to it first", ErrStreamNotFound, spec.Stream)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("natsio: source stream %s: %w", spec.Stream, err)
	}
	switch st.CachedInfo().Config.Retention {
	case jetstream.WorkQueuePolicy:
		return st, jetstream.AckExplicitPolicy, nil
	case jetstream.InterestPolicy:
		return st, jetstream.AckAllPolicy, nil
	}
	return nil, 0, fmt.Errorf("%w: stream %s keeps messages by limits, so reading it needs no acknowledgements: use OpenSource",
		ErrNeedsNoAcks, spec.Stream)
}
