package acceptance

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// A recorder's ordered consumer can stop delivering after a stream
// leader is SIGKILLed while the test's connection reconnects (seen in
// TestNATSFaultsDuringRescale: the control recorder saw no record for
// 90 s while the workers wrote assignments). follower reads a stream in
// order through an ordered consumer and replaces the consumer, from the
// sequence after the last one it delivered, when the stream holds more
// than it delivered and nothing arrived for followStall.
const (
	followStall = 5 * time.Second
	followCheck = time.Second
)

type follower struct {
	js      jetstream.JetStream
	stream  string
	handle  func(jetstream.Msg)
	onError func(error)

	mu       sync.Mutex
	cons     jetstream.ConsumeContext
	last     uint64    // stream sequence of the last message delivered
	progress time.Time // when last changed, or the consumer was replaced
	restarts int
	stopped  chan struct{}
	done     chan struct{}
}

// follow starts reading stream from its first message; handle sees each
// message once, in stream order. Stop ends it.
func follow(ctx context.Context, js jetstream.JetStream, stream string, handle func(jetstream.Msg), onError func(error)) (*follower, error) {
	f := &follower{js: js, stream: stream, handle: handle, onError: onError, stopped: make(chan struct{}), done: make(chan struct{})}
	if err := f.consume(ctx, 0); err != nil {
		return nil, err
	}
	go f.watch()
	return f, nil
}

// consume starts an ordered consumer after sequence after (0: from the
// start). Lock not held.
func (f *follower) consume(ctx context.Context, after uint64) error {
	cfg := jetstream.OrderedConsumerConfig{}
	if after > 0 {
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, after+1
	}
	cons, err := f.js.OrderedConsumer(ctx, f.stream, cfg)
	if err != nil {
		return fmt.Errorf("ordered consumer on %s: %w", f.stream, err)
	}
	cc, err := cons.Consume(f.deliver, jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) { f.onError(err) }))
	if err != nil {
		return fmt.Errorf("consume %s: %w", f.stream, err)
	}
	f.mu.Lock()
	f.cons, f.progress = cc, time.Now()
	f.mu.Unlock()
	return nil
}

// deliver hands m on unless a replaced consumer delivered it already.
func (f *follower) deliver(m jetstream.Msg) {
	meta, err := m.Metadata()
	if err != nil {
		f.onError(fmt.Errorf("%s: message without metadata: %w", f.stream, err))
		return
	}
	f.mu.Lock()
	if meta.Sequence.Stream <= f.last {
		f.mu.Unlock()
		return
	}
	f.last, f.progress = meta.Sequence.Stream, time.Now()
	f.mu.Unlock()
	f.handle(m)
}

// watch replaces a consumer that stalled behind the stream.
func (f *follower) watch() {
	defer close(f.done)
	tick := time.NewTicker(followCheck)
	defer tick.Stop()
	for {
		select {
		case <-f.stopped:
			return
		case <-tick.C:
		}
		f.mu.Lock()
		last, idle := f.last, time.Since(f.progress)
		f.mu.Unlock()
		if idle < followStall || !f.behind(last) {
			continue
		}
		f.replace(last)
	}
}

// behind reports whether the stream holds a message after last.
func (f *follower) behind(last uint64) bool {
	ctx, cancel := context.WithTimeout(context.Background(), followCheck)
	defer cancel()
	s, err := f.js.Stream(ctx, f.stream)
	return err == nil && s.CachedInfo().State.LastSeq > last
}

func (f *follower) replace(last uint64) {
	f.mu.Lock()
	old := f.cons
	f.restarts++
	f.mu.Unlock()
	old.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.consume(ctx, last); err != nil {
		f.onError(fmt.Errorf("replacing the stalled consumer: %w", err))
		f.mu.Lock()
		f.progress = time.Now() // try again after another stall period
		f.mu.Unlock()
	}
}

// replaced counts the consumers replaced after a stall, for reports.
func (f *follower) replaced() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.restarts
}

// Stop ends the reading.
func (f *follower) Stop() {
	close(f.stopped)
	<-f.done
	f.mu.Lock()
	cc := f.cons
	f.mu.Unlock()
	cc.Stop()
}
