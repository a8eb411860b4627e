package natsio

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

const (
	// DefaultMaxPending is the number of unacknowledged publishes a Sink
	// allows when NewSink gets 0 or less.
	DefaultMaxPending = 4096
	// SinkAckTimeout is how long Flush waits without any acknowledgement
	// arriving before it counts the silence as an outage; the pending
	// publishes fail once it has also outlasted the outage budget: a lost
	// reply must not make it wait forever. It is checked by Flush rather
	// than per message, because a timer per publish costs a large share of
	// the publish rate.
	SinkAckTimeout = 30 * time.Second
	// DefaultStallResend is how long Flush waits, connected, without any
	// acknowledgement before it sends every pending publish again
	// (sink_stall.go): longer than a busy server's answers take, shorter
	// than the outage budget.
	DefaultStallResend = 5 * time.Second
)

// OutMessage is one message for a Sink.
type OutMessage struct {
	Subject string
	// MsgID becomes the Nats-Msg-Id header, which JetStream uses to drop
	// a message it already stored within the stream's duplicate window.
	// "" = none.
	MsgID string
	// Data must not be changed until Flush returns: a publish that meets
	// no stream leader is sent again from it.
	Data []byte
	// Header holds extra headers (may be nil). Publish does not modify it
	// unless OwnHeader is set.
	Header nats.Header
	// OwnHeader hands Header over to the Sink: Publish then sets the
	// Nats-Msg-Id and drops Nats-Batch-* headers in Header itself instead
	// of in a copy, and a resend sends it again. The caller must neither
	// change nor share Header after Publish; it may read it (the result
	// is what WireSize measured). It saves a map copy per output.
	OwnHeader bool
}

// SinkStats counts a Sink's publishes.
type SinkStats struct {
	Published  uint64 // handed to the connection
	Acked      uint64 // acknowledged by JetStream, duplicates included
	Duplicates uint64 // acknowledged as already stored (PubAck.Duplicate)
	Failed     uint64 // not acknowledged: an error
	Resent     uint64 // sent again after an outage (sink_resend.go)
	Unstuck    uint64 // times the pending publishes were sent again for want of any answer (sink_stall.go)
	Pending    int    // published, neither acknowledged nor failed yet
}

// SinkOptions configures a Sink.
type SinkOptions struct {
	// OnStored, when set, is called for each message the server stored
	// for the first time (not for a duplicate its window dropped), with
	// its stream sequence, in the order the acknowledgements arrive, on
	// the Sink's reply goroutine: it must not block. The message must not
	// be changed.
	OnStored func(msg *nats.Msg, seq uint64)
	// MaxPending bounds the unacknowledged publishes (DefaultMaxPending if
	// 0 or less).
	MaxPending int
	// OutageBudget is how long publishes that failed only because NATS was
	// unreachable are sent again, with the same message ids, before they
	// fail (DefaultOutageBudget if 0; negative: never sent again). It must
	// stay below the duplicate window of the streams the Sink publishes to.
	OutageBudget time.Duration
	// BeforeResend, when set, is asked before each round of resends after
	// an outage; it may wait. An error fails the queued publishes with it
	// instead of sending them. A cluster worker's part passes its fence
	// here: what an outage failed must not go out again once the part's
	// tasks may belong to another worker (a partition, a lost lease).
	BeforeResend func(ctx context.Context) error
	// StallResend is how long Flush waits, connected, without any
	// acknowledgement before it sends the pending publishes again
	// (DefaultStallResend if 0; negative: never).
	StallResend time.Duration
}

// Sink publishes asynchronously and accounts for every acknowledgement
// (sink_replies.go).
// A publish that failed because NATS was unreachable (IsOutage) is sent
// again, same message and id, once the connection is back, for up to the
// outage budget; the stream's duplicate window drops a copy it already
// stored. Any other failure, and an outage past the budget, is never
// silent: the first one is kept and returned by Flush and by every later
// Publish, because the epoch it belongs to can no longer be complete. The
// engine then replays from its last checkpoint, which the message ids make
// safe. Publish and Flush may be called from several goroutines.
type Sink struct {
	conn       *Conn         // for its state and its server's URL
	slots      chan struct{} // one token per pending publish: backpressure
	ackTimeout time.Duration
	stall      time.Duration // SinkOptions.StallResend
	budget     time.Duration // outage budget; <= 0: no resends
	wake       chan struct{} // tells the resender that retries are queued
	done       chan struct{} // closed by Close: the resender ends
	// beforeResend is SinkOptions.BeforeResend.
	beforeResend func(ctx context.Context) error
	onStored     func(msg *nats.Msg, seq uint64) // SinkOptions.OnStored

	mu      sync.Mutex
	pending map[*nats.Msg]struct{}
	idle    chan struct{} // closed when pending empties; made by Flush
	err     error         // first failure, sticky
	closed  bool
	stats   SinkStats
	// bySubject splits stats by message subject: a pipeline's sinks each
	// publish to one subject, so this is the per-sink view (sink_subjects.go).
	bySubject map[string]*SinkStats
	outage    outage // publishes waiting to be sent again

	// Publish replies (sink_replies.go); replies is nil until the first
	// publish and after Close.
	inbox   string             // reply subjects are inbox + token
	replies *nats.Subscription // to inbox + "*"
	status  chan nats.Status   // RECONNECTING and CLOSED of the connection
	tokens  uint64             // the last token handed out
	sent    map[string]*attempt
}

// NewSink returns a Sink allowing maxPending unacknowledged publishes
// (DefaultMaxPending if maxPending <= 0) with the default outage budget.
func (c *Conn) NewSink(maxPending int) *Sink {
	return c.NewSinkWith(SinkOptions{MaxPending: maxPending})
}

// NewSinkWith returns a Sink configured by o. Each Sink has its own
// reply subscription, so its accounting is independent of other Sinks on c.
func (c *Conn) NewSinkWith(o SinkOptions) *Sink {
	maxPending := o.MaxPending
	if maxPending <= 0 {
		maxPending = DefaultMaxPending
	}
	if o.OutageBudget == 0 {
		o.OutageBudget = DefaultOutageBudget
	}
	if o.StallResend == 0 {
		o.StallResend = DefaultStallResend
	}
	s := &Sink{
		conn:         c,
		slots:        make(chan struct{}, maxPending),
		ackTimeout:   SinkAckTimeout,
		stall:        o.StallResend,
		budget:       o.OutageBudget,
		wake:         make(chan struct{}, 1),
		done:         make(chan struct{}),
		beforeResend: o.BeforeResend,
		onStored:     o.OnStored,
		pending:      make(map[*nats.Msg]struct{}, maxPending),
		sent:         make(map[string]*attempt, maxPending),
	}
	return s
}

// Publish sends m without waiting for its acknowledgement. It blocks while
// maxPending publishes are unacknowledged, until one is or ctx ends.
func (s *Sink) Publish(ctx context.Context, m OutMessage) error {
	if err := s.usable(); err != nil {
		return err
	}
	if err := s.takeSlot(ctx); err != nil {
		return err
	}
	msg := &nats.Msg{Subject: m.Subject, Data: m.Data, Header: sentHeader(m)}
	s.mu.Lock()
	s.pending[msg] = struct{}{}
	s.stats.Published++
	by := s.subject(msg)
	by.Published++
	by.Pending++
	s.mu.Unlock()
	if err := s.sendNew(msg); err != nil {
		s.onError(msg, err)
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.err
	}
	return nil
}

// usable returns the sticky error, or ErrSinkClosed after Close.
func (s *Sink) usable() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrSinkClosed
	}
	return s.err
}

// sentHeader is the header map Publish sends for m: m.Header itself,
// changed in place, when the Sink owns it; otherwise a copy if it needs
// changes.
func sentHeader(m OutMessage) nats.Header {
	if m.OwnHeader && m.Header != nil {
		return setMsgID(m.Header, m.MsgID)
	}
	return withMsgID(m.Header, m.MsgID)
}

// setMsgID is withMsgID changing h itself. Applying it twice changes
// nothing more, so a message published again keeps its headers.
func setMsgID(h nats.Header, id string) nats.Header {
	for k := range h {
		if isBatchHeader(k) {
			delete(h, k)
		}
	}
	if id != "" {
		h[jetstream.MsgIDHeader] = []string{id}
	}
	return h
}

// withMsgID returns h plus the Nats-Msg-Id header, without modifying h.
// Nats-Batch-* headers are dropped: copied from an input that was stored by
// an atomic batch, they would make the server treat this single publish as
// part of a batch.
func withMsgID(h nats.Header, id string) nats.Header {
	if id == "" && !hasBatchHeader(h) {
		return h
	}
	if h == nil {
		return nats.Header{jetstream.MsgIDHeader: []string{id}}
	}
	h = maps.Clone(h)
	maps.DeleteFunc(h, func(k string, _ []string) bool { return isBatchHeader(k) })
	if id != "" {
		h[jetstream.MsgIDHeader] = []string{id}
	}
	return h
}

// batchHeaderPrefix starts the names of JetStream's atomic batch headers.
const batchHeaderPrefix = "Nats-Batch-"

// isBatchHeader reports a header of JetStream's atomic batch protocol: one
// whose canonical form starts with batchHeaderPrefix. It runs for every
// header of every output (twice), so it canonicalizes only a name that
// can match: canonicalization changes nothing but the case of ASCII
// letters, so a name whose start differs from the prefix other than in
// ASCII case never matches, and one that starts with the prefix exactly
// always does.
func isBatchHeader(name string) bool {
	const n = len(batchHeaderPrefix)
	if len(name) < n || !asciiEqualFold(name[:n], batchHeaderPrefix) {
		return false
	}
	return name[:n] == batchHeaderPrefix || strings.HasPrefix(http.CanonicalHeaderKey(name), batchHeaderPrefix)
}

// asciiEqualFold reports whether a and b are equal ignoring the case of
// ASCII letters only (strings.EqualFold also folds runes such as U+017F,
// which canonicalization leaves alone).
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lowerASCII(a[i]) != lowerASCII(b[i]) {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

func hasBatchHeader(h nats.Header) bool {
	for k := range h {
		if isBatchHeader(k) {
			return true
		}
	}
	return false
}

// onAck runs on the reply goroutine for each stored message, and hands a
// newly stored one to OnStored.
func (s *Sink) onAck(msg *nats.Msg, ack pubAck) {
	if s.acked(msg, ack) && !ack.Duplicate && s.onStored != nil {
		s.onStored(msg, ack.Sequence)
	}
}

// acked settles msg as stored; false when it was settled already.
func (s *Sink) acked(msg *nats.Msg, ack pubAck) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.settle(msg) {
		return false
	}
	s.stats.Acked++
	by := s.subject(msg)
	by.Acked++
	if ack.Duplicate {
		s.stats.Duplicates++
		by.Duplicates++
	}
	s.outage.since = time.Time{} // JetStream answers: any outage is over
	return true
}

// onError runs for each publish that failed: an outage queues it to be
// sent again, anything else fails it.
func (s *Sink) onError(msg *nats.Msg, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.pending[msg]; !ok || s.retryLater(msg, err) {
		return
	}
	s.settle(msg)
	s.fail(msg, err)
}

// fail counts a settled publish as failed and keeps the first error. Lock held.
func (s *Sink) fail(msg *nats.Msg, err error) {
	s.stats.Failed++
	s.subject(msg).Failed++
	if s.err == nil {
		s.err = s.publishError(msg, err)
	}
}

// settle removes msg from pending and frees its slot. It reports false for
// a message already settled: a reply or an error may come for a publish
// that failed meanwhile (failPending, past the outage budget). Lock held.
func (s *Sink) settle(msg *nats.Msg) bool {
	if _, ok := s.pending[msg]; !ok {
		return false
	}
	delete(s.pending, msg)
	s.subject(msg).Pending--
	<-s.slots
	if len(s.pending) == 0 && s.idle != nil {
		close(s.idle)
		s.idle = nil
	}
	return true
}

// publishError says what happened to msg and what the user can do. An
// outage that outlasted the budget names the server and the budget.
func (s *Sink) publishError(msg *nats.Msg, err error) error {
	if s.budget <= 0 || !IsOutage(err) {
		return publishError(msg, err)
	}
	return fmt.Errorf("%w: %w: message to %q (msg id %q) not acknowledged: the NATS server at %s did not answer "+
		"for the outage budget of %s (%w); the message may or may not be stored. Check that the server is running "+
		"and reachable from here, or raise server.outage_budget; a replay from the last checkpoint is safe: "+
		"the message id lets JetStream drop what it already has",
		ErrPublish, ErrUnreachable, msg.Subject, msg.Header.Get(jetstream.MsgIDHeader), s.conn.ClientURL(), s.budget, err)
}

// publishError says what happened to msg when it is not sent again.
func publishError(msg *nats.Msg, err error) error {
	subj, id := msg.Subject, msg.Header.Get(jetstream.MsgIDHeader)
	switch {
	case errors.Is(err, ErrNoStream):
		return err // already says which subject and what to do
	case errors.Is(err, jetstream.ErrNoStreamResponse), errors.Is(err, nats.ErrNoResponders):
		return fmt.Errorf("%w %q: JetStream did not answer the publish; declare a stream whose subjects include it, or fix the output subject: %w",
			ErrNoStream, subj, err)
	case errors.Is(err, nats.ErrDisconnected), errors.Is(err, jetstream.ErrAsyncPublishTimeout),
		errors.Is(err, jetstream.ErrJetStreamPublisherClosed):
		return fmt.Errorf("%w: message to %q (msg id %q) was not acknowledged (%w); it may or may not be stored, "+
			"so replay from the last checkpoint: the message id lets JetStream drop what it already has", ErrPublish, subj, id, err)
	}
	return fmt.Errorf("%w: message to %q (msg id %q): %w", ErrPublish, subj, id, err)
}

// Flush waits until every publish so far is acknowledged or failed, then
// returns the first failure (nil if none). Through an outage it waits for
// the resends, up to the outage budget; if no acknowledgement at all
// arrives for SinkAckTimeout and the budget, the pending publishes fail.
// It returns ctx.Err() if ctx ends first.
func (s *Sink) Flush(ctx context.Context) error {
	for {
		s.mu.Lock()
		if len(s.pending) == 0 {
			defer s.mu.Unlock()
			return s.err
		}
		if s.idle == nil {
			s.idle = make(chan struct{})
		}
		idle, settled := s.idle, s.settledCount()
		s.mu.Unlock()
		if err := s.waitIdle(ctx, idle, settled); err != nil {
			return err
		}
	}
}

// waitIdle waits for idle, ctx, or one ack timeout, and returns early on
// progress. No progress since settled is an outage that began when the
// wait did: a timeout, or a connection that is down (its publishes wait in
// nats.go's reconnect buffer or for acknowledgements that will not come).
// Once that outage outlasts the budget, everything pending fails.
func (s *Sink) waitIdle(ctx context.Context, idle <-chan struct{}, settled uint64) error {
	_, err := s.await(ctx, idle, nil, settled)
	return err
}

// await is waitIdle that also returns, true, once it took a slot from
// slots (nil: none is taken).
func (s *Sink) await(ctx context.Context, idle <-chan struct{}, slots chan<- struct{}, settled uint64) (bool, error) {
	started := time.Now()
	timer := time.NewTimer(s.ackTimeout)
	defer timer.Stop()
	tick := time.NewTicker(resendPause)
	defer tick.Stop()
	stalled := s.stallTimer()
	defer stalled.Stop()
	for {
		select {
		case slots <- struct{}{}:
			return true, nil
		case <-idle:
			return false, nil
		case <-ctx.Done():
			return false, ctx.Err()
		case <-stalled.C:
			if s.resendStalled(settled) {
				return false, nil
			}
			stalled.Reset(s.stall)
		case <-tick.C:
			if !s.conn.NC.IsConnected() && s.failIfStalled(started, settled, nats.ErrDisconnected) {
				return false, nil
			}
		case <-timer.C:
			s.failIfStalled(started, settled, jetstream.ErrAsyncPublishTimeout)
			return false, nil
		}
	}
}

// failIfStalled fails everything pending with err when nothing settled
// since settled and the outage dated from started outlasted the budget.
// It reports whether Flush should look again: something settled, or it
// failed what was pending.
func (s *Sink) failIfStalled(started time.Time, settled uint64, err error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.settledCount() != settled {
		return true
	}
	if s.outage.within(started, s.budget) {
		return false
	}
	s.failPending(err)
	return true
}

func (s *Sink) settledCount() uint64 { return s.stats.Acked + s.stats.Failed }

// failPending fails every pending publish with err. Lock held.
func (s *Sink) failPending(err error) {
	s.outage.queue = nil
	clear(s.sent) // a late reply finds nothing to settle
	for msg := range s.pending {
		s.settle(msg)
		s.fail(msg, err)
	}
}

// Stats returns the counters so far.
func (s *Sink) Stats() SinkStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Pending = len(s.pending)
	return st
}

// Close abandons the Sink: publishes still pending fail (call Flush first to
// wait for them) and its reply subscription is removed.
func (s *Sink) Close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.done)
		for _, r := range s.outage.queue {
			s.settle(r.msg)
			s.fail(r.msg, ErrSinkClosed)
		}
		s.outage.queue = nil
	}
	s.mu.Unlock()
	s.stopReplies()
	s.failSent(jetstream.ErrJetStreamPublisherClosed)
}
