package natsio

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Source tuning. The pull batch keeps the server streaming while the
// engine works on a batch; the buffer is what Fetch drains without waiting.
const (
	sourcePullBatch = 1000
	sourceBuffer    = 4096
)

// Message is one source record handed to the engine.
type Message struct {
	Stream   string
	Sequence uint64 // stream sequence
	Subject  string
	Data     []byte
	Header   nats.Header
	Time     time.Time // JetStream timestamp, the record's event time
}

// StreamIdentity tells one incarnation of a stream from another with the
// same name: a stream deleted and created again restarts its sequences, so
// a checkpointed position means nothing in the new one.
type StreamIdentity struct {
	Stream  string
	Created time.Time
}

// SourceSpec says what to read.
type SourceSpec struct {
	Stream        string
	FilterSubject string // "" = all subjects of the stream
	// FilterSubjects, instead of FilterSubject, reads several subjects
	// with one consumer (NATS ADR-34), in stream order: a consumer of an
	// exchange stream reads its key groups' subjects only.
	FilterSubjects []string
	// StartSequence is the first sequence to deliver; 0 or 1 = from the start.
	StartSequence uint64
	// AllowGap lets a source skip messages that are gone (see
	// ErrSequenceGap): the user's explicit choice to lose them.
	AllowGap bool
	// AcceptGapsThrough accepts the messages up to this stream sequence
	// that are gone before the source read them: the gaps a user accepted
	// when the run started (0 = none). A gap after it still stops the
	// source.
	AcceptGapsThrough uint64
	// StreamCreated, when set, is the creation time of the stream that
	// StartSequence belongs to (a checkpoint's): a stream with another one
	// was deleted and created again, and OpenSource fails with
	// ErrStreamRecreated.
	StreamCreated time.Time
}

// Source is an ordered, ack-less consumer of one stream. The engine owns
// the position and checkpoints it; the server keeps no state worth keeping.
// On a reconnect or a lost consumer, nats.go recreates the consumer after
// the last delivered sequence, so delivery stays in order without repeats.
//
// Without a filter, every stream sequence must arrive: a jump means
// messages were removed before the source read them (a purge, age or size
// limits, deletes), and the source stops with ErrSequenceGap instead of
// skipping them, unless AllowGap. With a filter, sequences of other
// subjects are legitimately absent, so the start position is checked
// against the stream's removed sequences instead (at the open and at the
// first delivery).
//
// The stream must stay the one the source started on: nats.go may recreate
// the ordered consumer on a stream deleted and created again under the same
// name, so the source checks the stream's creation time before it delivers
// anything from a consumer it has not seen, and every few seconds while it
// waits (see source_check.go). A changed stream stops it with
// ErrStreamRecreated.
//
// A source reads on a connection of its own (sourceconn.go), and a watcher
// wakes its iterator when nats.go stopped asking for messages
// (source_wake.go): both against a stall of nats.go v1.55.0.
type Source struct {
	identity      StreamIdentity
	st            jetstream.Stream   // for the checks against the server
	cons          jetstream.Consumer // for the wake-up checks and Backlog
	log           hclog.Logger
	checkGaps     bool                      // unfiltered and !AllowGap: every sequence must follow the last
	checkFirst    bool                      // filtered, resumed, !AllowGap: the first delivery's skipped sequences are checked; pump only
	acceptThrough uint64                    // SourceSpec.AcceptGapsThrough
	last          uint64                    // last sequence delivered, or StartSequence-1; pump only
	consumer      string                    // the consumer that delivered the last message; pump only
	interval      time.Duration             // between the watcher's identity checks
	wakeInterval  time.Duration             // between its wake-up checks (source_wake.go)
	iter          jetstream.MessagesContext // replaced by the pump only (restartIterator), under iterMu
	// reopen makes a new consumer and iterator delivering from sequence
	// from on (restartIterator); nil: a new iterator of cons.
	reopen   func(ctx context.Context, from uint64) (jetstream.Consumer, jetstream.MessagesContext, error)
	iterMu   sync.Mutex
	waker    waker // ends a wait in Next that nats.go forgot (source_wake.go)
	taken    taken // the deliveries taken from nats.go and not handed out yet, for Backlog
	msgs     chan Message
	ctx      context.Context // the checks' requests; cancelled by Close
	cancel   context.CancelFunc
	stop     chan struct{} // closed by Close
	done     chan struct{} // closed when pump returns; err is then set
	watched  chan struct{} // closed when watch returns
	err      error
	stopOnce sync.Once

	failMu  sync.Mutex
	failure error // what the watcher found; the pump stops with it
}

// OpenSource starts reading spec.Stream at spec.StartSequence. Unless
// spec.AllowGap, it fails with ErrSequenceGap when messages from that
// position on were removed, or when the position lies beyond the stream's
// end (the stream was created again).
func (c *Conn) OpenSource(ctx context.Context, spec SourceSpec) (*Source, error) {
	if err := spec.validate(); err != nil {
		return nil, err
	}
	js, _, err := c.sourceJS(ctx)
	if err != nil {
		return nil, err
	}
	st, err := js.Stream(ctx, spec.Stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, fmt.Errorf("%w: source stream %s does not exist; declare it or publish to it first", ErrStreamNotFound, spec.Stream)
	}
	if err != nil {
		return nil, fmt.Errorf("natsio: source stream %s: %w", spec.Stream, err)
	}
	info := st.CachedInfo()
	if err := checkCreated(spec.Stream, spec.StreamCreated, info.Created); err != nil {
		return nil, err
	}
	if !spec.AllowGap {
		if err := checkPosition(spec, info.State); err != nil {
			return nil, err
		}
		if spec.filtered() { // without one, every sequence is checked as it arrives
			if err := checkRemoved(ctx, st, spec); err != nil {
				return nil, err
			}
		}
	}
	cons, iter, err := openIterator(ctx, st, spec)
	if err != nil {
		return nil, fmt.Errorf("natsio: source stream %s: %w", spec.Stream, err)
	}
	s := newSource(st, StreamIdentity{Stream: spec.Stream, Created: info.Created}, cons, iter, c.log)
	s.reopen = func(ctx context.Context, from uint64) (jetstream.Consumer, jetstream.MessagesContext, error) {
		resumed := spec
		resumed.StartSequence = from
		return openIterator(ctx, st, resumed)
	}
	s.checkGaps = !spec.filtered() && !spec.AllowGap
	s.checkFirst = spec.filtered() && !spec.AllowGap && spec.StartSequence > 1
	s.acceptThrough = spec.AcceptGapsThrough
	s.last = max(spec.StartSequence, 1) - 1
	go s.pump()
	go s.watch()
	return s, nil
}

// newSource returns a Source reading iter of cons, not started.
func newSource(st jetstream.Stream, identity StreamIdentity, cons jetstream.Consumer, iter jetstream.MessagesContext, log hclog.Logger) *Source {
	ctx, cancel := context.WithCancel(context.Background())
	return &Source{
		identity:     identity,
		st:           st,
		cons:         cons,
		log:          log,
		interval:     identityCheckInterval,
		wakeInterval: wakeCheckInterval,
		iter:         iter,
		msgs:         make(chan Message, sourceBuffer),
		ctx:          ctx,
		cancel:       cancel,
		stop:         make(chan struct{}),
		done:         make(chan struct{}),
		watched:      make(chan struct{}),
	}
}

func (spec SourceSpec) validate() error {
	if !validStreamName(spec.Stream) {
		return fmt.Errorf("%w: source stream name %q is not valid", ErrInvalidStreamSpec, spec.Stream)
	}
	if spec.FilterSubject != "" && len(spec.FilterSubjects) > 0 {
		return fmt.Errorf("%w: source stream %s: a filter subject and filter subjects; give one or the other", ErrInvalidStreamSpec, spec.Stream)
	}
	for _, f := range spec.filters() {
		if !server.IsValidSubject(f) {
			return fmt.Errorf("%w: source stream %s: filter %q is not a valid subject", ErrInvalidStreamSpec, spec.Stream, f)
		}
	}
	return nil
}

// filters are the subjects the source reads; none: every subject of the stream.
func (spec SourceSpec) filters() []string {
	if spec.FilterSubject != "" {
		return []string{spec.FilterSubject}
	}
	return spec.FilterSubjects
}

// filtered reports whether the source reads only some subjects of the stream.
func (spec SourceSpec) filtered() bool { return len(spec.filters()) > 0 }

// checkPosition refuses a resume position that the stream cannot honour:
// messages from it on were removed (purge, age or size limits), or the
// stream is shorter than the position (it was deleted and created again).
// Either way resuming would silently skip or misread records.
func checkPosition(spec SourceSpec, state jetstream.StreamState) error {
	start := spec.StartSequence
	if start <= 1 {
		return nil
	}
	if state.FirstSeq > start && state.FirstSeq-1 > spec.AcceptGapsThrough {
		return fmt.Errorf("%w: stream %s starts at sequence %d, so sequences %d..%d needed to resume are gone (purged or expired); "+
			"restore the data, or accept the loss explicitly", ErrSequenceGap, spec.Stream, state.FirstSeq, start, state.FirstSeq-1)
	}
	if start > state.LastSeq+1 {
		return fmt.Errorf("%w: stream %s ends at sequence %d but the resume position is %d; was the stream deleted and created again?",
			ErrSequenceGap, spec.Stream, state.LastSeq, start)
	}
	return nil
}

func openIterator(ctx context.Context, st jetstream.Stream, spec SourceSpec) (jetstream.Consumer, jetstream.MessagesContext, error) {
	cfg := jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy}
	if spec.StartSequence > 1 {
		cfg.DeliverPolicy = jetstream.DeliverByStartSequencePolicy
		cfg.OptStartSeq = spec.StartSequence
	}
	cfg.FilterSubjects = spec.filters()
	cons, err := st.OrderedConsumer(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	iter, err := cons.Messages(jetstream.PullMaxMessages(sourcePullBatch))
	return cons, iter, err
}

// pump moves messages from the iterator into the buffer. One goroutine, so
// the order of the ordered consumer is kept.
func (s *Source) pump() {
	defer close(s.done)
	for {
		msg, err := s.next()
		if err != nil {
			s.err = s.iteratorError(err)
			return
		}
		m, deliver, err := s.accept(msg)
		if err != nil {
			s.err = err
			return
		}
		if !s.pass(m, deliver) {
			s.err = ErrSourceClosed
			return
		}
	}
}

// pass buffers m for Fetch, or counts a delivery the pump drops as
// handed out (nothing of it is left); false after Close.
func (s *Source) pass(m Message, deliver bool) bool {
	if !deliver {
		s.taken.handed(1)
		return true
	}
	return s.buffer(m)
}

// buffer hands m to Fetch, waiting for room; false after Close.
func (s *Source) buffer(m Message) bool {
	select {
	case s.msgs <- m:
		return true
	case <-s.stop:
		return false
	}
}

// take notes md as the last delivery taken from nats.go; Backlog counts
// it as left until Fetch hands it out or the pump drops it.
func (s *Source) take(md *jetstream.MsgMetadata) { s.taken.record(md) }

// accept decides what to do with one message: deliver it, drop it (a
// repeat), or stop (a gap, or a stream that is not the source's any more).
func (s *Source) accept(msg jetstream.Msg) (Message, bool, error) {
	md, err := msg.Metadata()
	if err != nil {
		return Message{}, false, fmt.Errorf("natsio: source stream %s: message on %s without JetStream metadata: %w", s.identity.Stream, msg.Subject(), err)
	}
	s.take(md)
	seq := md.Sequence.Stream
	if seq <= s.last {
		return Message{}, false, nil
	}
	if err := s.checkStream(md.Consumer, seq); err != nil {
		return Message{}, false, err
	}
	deliver, err := s.checkSequence(seq)
	if err != nil || !deliver {
		return Message{}, false, err
	}
	return Message{
		Stream:   s.identity.Stream,
		Sequence: seq,
		Subject:  msg.Subject(),
		Data:     msg.Data(),
		Header:   msg.Headers(),
		Time:     md.Timestamp,
	}, true, nil
}

// checkSequence drops a sequence delivered before (nats.go should never
// repeat one, but a repeat would count a record twice) and, when checking
// gaps, fails on one that does not follow the last. The very first message
// of a source reading from the start may follow a purge that happened
// before the pipeline ever ran: that is not a gap.
func (s *Source) checkSequence(seq uint64) (deliver bool, err error) {
	last := s.last
	if seq <= last {
		return false, nil
	}
	s.last = seq
	if !s.checkGaps || last == 0 || seq == last+1 || seq-1 <= s.acceptThrough {
		return true, nil
	}
	return false, fmt.Errorf("%w: stream %s delivered sequence %d after %d: sequences %d..%d were removed before this source read them "+
		"(purge, age or size limits, or deletes); restore them, or allow the gap explicitly", ErrSequenceGap, s.identity.Stream, seq, last, last+1, seq-1)
}

// iteratorError is why the consumer stopped: Close, what the watcher
// found, or the consumer's error, unless the stream is gone or another one
// (a deleted stream takes its consumers with it), which then is the reason.
func (s *Source) iteratorError(err error) error {
	select {
	case <-s.stop:
		return ErrSourceClosed
	default:
	}
	if f := s.failed(); f != nil {
		return f
	}
	if changed := s.streamChanged(streamCheckAttempts); changed != nil {
		return changed
	}
	return fmt.Errorf("natsio: source stream %s stopped: %w", s.identity.Stream, err)
}

// Fetch blocks until at least one message is buffered or maxWait passes,
// then returns up to max of the buffered messages, in stream order. It
// returns (nil, nil) on timeout, ctx.Err() when ctx ends, ErrSourceClosed
// after Close, and the consumer's error if it stopped (connection closed).
func (s *Source) Fetch(ctx context.Context, max int, maxWait time.Duration) ([]Message, error) {
	if max < 1 {
		max = 1
	}
	select {
	case <-s.stop:
		return nil, ErrSourceClosed
	default:
	}
	first, err := s.waitFirst(ctx, maxWait)
	if err != nil || first == nil {
		return nil, err
	}
	batch := make([]Message, 1, min(max, len(s.msgs)+1))
	batch[0] = *first
	defer func() { s.taken.handed(len(batch)) }()
	for len(batch) < max {
		select {
		case m := <-s.msgs:
			batch = append(batch, m)
		default:
			return batch, nil
		}
	}
	return batch, nil
}

// waitFirst returns the next message, nil after maxWait, or an error.
func (s *Source) waitFirst(ctx context.Context, maxWait time.Duration) (*Message, error) {
	select {
	case m := <-s.msgs: // no timer when messages are waiting
		return &m, nil
	default:
	}
	timer := time.NewTimer(maxWait)
	defer timer.Stop()
	select {
	case m := <-s.msgs:
		return &m, nil
	case <-timer.C:
		return nil, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.done:
		return s.afterPump()
	}
}

// afterPump returns what the pump buffered before it stopped, then its error.
func (s *Source) afterPump() (*Message, error) {
	select {
	case m := <-s.msgs:
		return &m, nil
	default:
		return nil, s.err
	}
}

// Identity is the stream's name and creation time, recorded with a
// checkpoint so that a resume can tell the stream was not recreated.
func (s *Source) Identity() StreamIdentity { return s.identity }

// Close stops the consumer and waits for its goroutine. Buffered messages
// are dropped: the engine resumes from its own position.
func (s *Source) Close() {
	s.stopOnce.Do(func() {
		close(s.stop)
		s.cancel()
		s.iterMu.Lock()
		s.iter.Stop()
		s.iterMu.Unlock()
		<-s.done
		<-s.watched
		s.waker.stop()
	})
}
