package engine

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/internal/exchange"
	"github.com/wasmstream/wasmstream/natsio"
)

// The local-edge shortcut. In one process the producer of an exchange edge and its consumer
// share the pipeline's sink, so the consumer need not read back from the server what the sink
// just stored there: each record the server acknowledges as newly stored, with its stream
// sequence, goes into the edge's feed, and the consumer's reader takes it from there. The
// semantics stay the stream's: the reader delivers a record from the feed only when it is the
// very next sequence of the stream, so it delivers exactly what a read of the stream would, in
// the same order, with the same positions; whatever the feed lacks (the records of an earlier
// run after a restore, an acknowledgement lost in a reconnect, a duplicate the stream dropped,
// records the bounded feed let go of) it reads from the stream, and returns to the feed once the
// feed continues where it is. The records stay published and acknowledged before the checkpoint
// that covers them completes, so restores and trimming are unchanged.

// feedCapacity bounds a feed: a consumer that falls further behind reads from the stream. A
// variable for tests.
var feedCapacity = 8192

// exchangeFeed holds the records the pipeline's sink stored in one exchange stream, in the
// order of their acknowledgements.
type exchangeFeed struct {
	stream string
	mu     sync.Mutex
	buf    []natsio.Message
	signal chan struct{} // one token: a record arrived
}

func newExchangeFeed(stream string) *exchangeFeed {
	return &exchangeFeed{stream: stream, signal: make(chan struct{}, 1)}
}

// add appends a stored record, letting the oldest half go when the feed is full (one move per
// half a feed, not per record: a consumer that far behind reads the stream anyway). It never
// blocks: it runs on the sink's reply goroutine.
func (f *exchangeFeed) add(msg *nats.Msg, seq uint64) {
	m := natsio.Message{Stream: f.stream, Sequence: seq, Subject: msg.Subject, Data: msg.Data, Header: msg.Header, Time: time.Now()}
	f.mu.Lock()
	if len(f.buf) >= feedCapacity {
		f.buf = append(f.buf[:0], f.buf[len(f.buf)-feedCapacity/2:]...)
	}
	f.buf = append(f.buf, m)
	f.mu.Unlock()
	select {
	case f.signal <- struct{}{}:
	default:
	}
}

// take drops the records before next and returns up to max records that continue next without
// a gap. ahead: the feed holds records, but the first is after next (the reader must read the
// stream up to it).
func (f *exchangeFeed) take(next uint64, max int) (msgs []natsio.Message, ahead bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	drop := 0
	for drop < len(f.buf) && f.buf[drop].Sequence < next {
		drop++
	}
	f.buf = f.buf[drop:]
	n := 0
	for n < len(f.buf) && n < max && f.buf[n].Sequence == next+uint64(n) {
		n++
	}
	if n == 0 {
		return nil, len(f.buf) > 0
	}
	msgs = append([]natsio.Message(nil), f.buf[:n]...)
	f.buf = f.buf[n:]
	return msgs, false
}

// feedStored is the sink's OnStored: a record stored in an exchange stream goes into its feed.
func (p *Pipeline) feedStored(msg *nats.Msg, seq uint64) {
	if !strings.HasPrefix(msg.Subject, exchange.SubjectRoot+".") {
		return
	}
	base := msg.Subject[:strings.LastIndexByte(msg.Subject, '.')]
	if f := p.feeds[base]; f != nil {
		f.add(msg, seq)
	}
}

// wireFeeds gives every exchange edge a feed, when the pipeline takes the shortcut: one process
// (a cluster's edges cross workers), unless Options.NoExchangeShortcut.
func (p *Pipeline) wireFeeds() {
	if p.opts.Cluster != nil || p.opts.NoExchangeShortcut || p.exec != nil || p.sink != nil {
		return // p.sink: connected before the edges were wired (registry modules), without OnStored
	}
	p.feeds = map[string]*exchangeFeed{}
	for _, e := range p.exchanges {
		subject := e.edge.StreamSubject()
		p.feeds[strings.TrimSuffix(subject, ".*")] = newExchangeFeed(e.source.Stream)
	}
}

// shortcut reads edge e through its feed; src reads the stream from spec's start sequence, and
// the reader reads it from there until it has caught up.
func (p *Pipeline) shortcut(e *exchangeEdge, src *natsio.Source, spec natsio.SourceSpec) *shortcutReader {
	return &shortcutReader{feed: p.feeds[strings.TrimSuffix(e.edge.StreamSubject(), ".*")], next: max(spec.StartSequence, 1), id: src.Identity(),
		stream: src, conn: p.conn,
		open: func(ctx context.Context, start uint64) (streamReader, error) {
			spec.StartSequence = start
			return p.conn.OpenSource(ctx, spec)
		}}
}

// shortcutReader reads an exchange stream through its feed where the feed continues the
// reader's position, and from the stream everywhere else.
type shortcutReader struct {
	feed   *exchangeFeed
	next   uint64 // the next sequence to deliver
	id     natsio.StreamIdentity
	stream streamReader // reading the stream from next on; nil while the feed is followed
	open   func(ctx context.Context, start uint64) (streamReader, error)
	conn   *natsio.Conn
	// checked is when, following the feed, the reader last asked the server whether the stream
	// holds more than the feed gave (a record whose acknowledgement a reconnect lost).
	checked time.Time
	// viaFeed and viaStream count the messages delivered each way (tests).
	viaFeed, viaStream atomic.Uint64
}

// feedCheckInterval is how often a reader waiting on its feed asks the server whether the
// stream went on without it.
const feedCheckInterval = time.Second

// Fetch returns the next records of the stream, from the feed when it holds the very next one.
func (r *shortcutReader) Fetch(ctx context.Context, max int, maxWait time.Duration) ([]natsio.Message, error) {
	deadline := time.Now().Add(maxWait)
	for {
		if msgs, ahead := r.feed.take(r.next, max); len(msgs) > 0 {
			r.closeStream()
			r.next = msgs[len(msgs)-1].Sequence + 1
			r.viaFeed.Add(uint64(len(msgs)))
			return msgs, nil
		} else if ahead || r.stream != nil {
			return r.fromStream(ctx, max, maxWait)
		}
		wait := time.Until(deadline)
		if wait <= 0 {
			return nil, r.checkStream(ctx)
		}
		timer := time.NewTimer(wait)
		select {
		case <-r.feed.signal:
			timer.Stop()
		case <-timer.C:
			return nil, r.checkStream(ctx)
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		}
	}
}

// checkStream, at most every feedCheckInterval while the feed brings nothing, asks the server
// whether the stream holds the next sequence anyway, and reads the stream then.
func (r *shortcutReader) checkStream(ctx context.Context) error {
	if time.Since(r.checked) < feedCheckInterval {
		return nil
	}
	r.checked = time.Now()
	st, err := r.conn.JS.Stream(ctx, r.id.Stream)
	if err != nil {
		return nil // no verdict: the next check asks again
	}
	if st.CachedInfo().State.LastSeq >= r.next {
		s, err := r.open(ctx, r.next)
		if err != nil {
			return err
		}
		r.stream = s
	}
	return nil
}

// fromStream reads the stream from next on; once it has nothing more, the feed is followed.
func (r *shortcutReader) fromStream(ctx context.Context, max int, maxWait time.Duration) ([]natsio.Message, error) {
	if r.stream == nil {
		s, err := r.open(ctx, r.next)
		if err != nil {
			return nil, err
		}
		r.stream = s
	}
	msgs, err := r.stream.Fetch(ctx, max, maxWait)
	if err != nil {
		return nil, err
	}
	if len(msgs) == 0 {
		r.closeStream() // caught up: what comes next, the sink acknowledges into the feed
		return nil, nil
	}
	r.next = msgs[len(msgs)-1].Sequence + 1
	r.viaStream.Add(uint64(len(msgs)))
	return msgs, nil
}

func (r *shortcutReader) closeStream() {
	if r.stream != nil {
		r.stream.Close()
		r.stream = nil
	}
}

func (r *shortcutReader) Identity() natsio.StreamIdentity { return r.id }

// Backlog is what the stream holds after position after; the feed's records are in it.
func (r *shortcutReader) Backlog(ctx context.Context, after uint64) (natsio.Backlog, error) {
	st, err := r.conn.JS.Stream(ctx, r.id.Stream)
	if err != nil {
		return natsio.Backlog{}, err
	}
	b := natsio.Backlog{Stream: r.id.Stream, After: after}
	if last := st.CachedInfo().State.LastSeq; last > after {
		b.Undelivered = last - after
	}
	return b, nil
}

func (r *shortcutReader) Close() { r.closeStream() }
