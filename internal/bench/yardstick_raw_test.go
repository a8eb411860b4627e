package bench

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The raw baseline of the yardstick benchmark, written on nats.go and its
// jetstream package alone (not on natsio), so that the ceiling is what the
// client library does with no wasmstream code in the loop.

// ysPending is the publish window of the raw loop and of the input
// publisher: the natsio sink's default window.
const ysPending = 4096

// ysStall is how long a publish waits for room in the window before
// nats.go fails it (its default, 200ms, fails publishes on a busy shared
// machine, where the natsio sink would just wait).
var ysStall = jetstream.WithStallWait(time.Minute)

// rawServer is how the raw loop reaches a server: its URL and the
// connection options (credentials) it needs.
type rawServer struct {
	url  string
	opts []nats.Option
}

// rawConnect opens a plain nats.go connection and JetStream context whose
// async publish failures are counted in failed.
func rawConnect(srv rawServer, failed *atomic.Int64) (*nats.Conn, jetstream.JetStream, error) {
	nc, err := nats.Connect(srv.url, srv.opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("connect to %s: %w", srv.url, err)
	}
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(ysPending),
		jetstream.WithPublishAsyncErrHandler(func(jetstream.JetStream, *nats.Msg, error) { failed.Add(1) }))
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return nc, js, nil
}

// rawLoop reads the first n records of stream in with an ordered consumer
// and republishes each to subject out with PublishMsgAsync, data and
// headers unchanged, plus a Nats-Msg-Id when ids is set; it returns the
// time from opening the consumer until every publish was acknowledged.
func rawLoop(ctx context.Context, srv rawServer, in, out string, n int, ids bool) (time.Duration, error) {
	var failed atomic.Int64
	nc, js, err := rawConnect(srv, &failed)
	if err != nil {
		return 0, err
	}
	defer nc.Close()
	start := time.Now()
	cons, err := js.OrderedConsumer(ctx, in, jetstream.OrderedConsumerConfig{})
	if err != nil {
		return 0, fmt.Errorf("ordered consumer on %s: %w", in, err)
	}
	seen, done := 0, make(chan struct{})
	cc, err := cons.Consume(func(m jetstream.Msg) {
		if seen == n {
			return
		}
		seen++
		msg := &nats.Msg{Subject: out, Data: m.Data(), Header: m.Headers()}
		if msg.Header == nil {
			msg.Header = nats.Header{}
		}
		if ids {
			msg.Header.Set(jetstream.MsgIDHeader, "ys.in."+strconv.Itoa(seen))
		}
		if _, err := js.PublishMsgAsync(msg, ysStall); err != nil {
			failed.Add(1)
		}
		if seen == n {
			close(done)
		}
	})
	if err != nil {
		return 0, fmt.Errorf("consume %s: %w", in, err)
	}
	select {
	case <-done:
	case <-ctx.Done():
		cc.Stop()
		return 0, fmt.Errorf("raw loop: %d of %d records read: %w", seen, n, ctx.Err())
	}
	cc.Stop()
	select {
	case <-js.PublishAsyncComplete():
	case <-ctx.Done():
		return 0, fmt.Errorf("raw loop: acknowledgements: %w", ctx.Err())
	}
	elapsed := time.Since(start)
	if f := failed.Load(); f > 0 {
		return 0, fmt.Errorf("raw loop: %d publishes failed", f)
	}
	return elapsed, nil
}

// rawPublishInput stores n records of value100 on subject, record i with
// header Key = keyName(i % keys), and waits for every acknowledgement.
func rawPublishInput(ctx context.Context, srv rawServer, subject string, n, keys int) error {
	var failed atomic.Int64
	nc, js, err := rawConnect(srv, &failed)
	if err != nil {
		return err
	}
	defer nc.Close()
	for i := 0; i < n; i++ {
		msg := &nats.Msg{Subject: subject, Data: value100, Header: nats.Header{"Key": {keyName(i % keys)}}}
		if _, err := js.PublishMsgAsync(msg, ysStall); err != nil {
			return fmt.Errorf("publish input %d: %w", i, err)
		}
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-ctx.Done():
		return ctx.Err()
	}
	if f := failed.Load(); f > 0 {
		return fmt.Errorf("publish input: %d publishes failed", f)
	}
	return nil
}

// rawStreamOp runs f on a JetStream context of a fresh connection to url.
func rawStreamOp(srv rawServer, f func(jetstream.JetStream) error) error {
	var failed atomic.Int64
	nc, js, err := rawConnect(srv, &failed)
	if err != nil {
		return err
	}
	defer nc.Close()
	return f(js)
}

// rawCreateStream creates a file stream name on subject.
func rawCreateStream(ctx context.Context, srv rawServer, name, subject string) error {
	return rawStreamOp(srv, func(js jetstream.JetStream) error {
		_, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: name, Subjects: []string{subject}, Storage: jetstream.FileStorage})
		return err
	})
}

// rawStreamCount returns the number of messages stream name holds.
func rawStreamCount(ctx context.Context, srv rawServer, name string) (uint64, error) {
	var n uint64
	err := rawStreamOp(srv, func(js jetstream.JetStream) error {
		st, err := js.Stream(ctx, name)
		if err != nil {
			return err
		}
		info, err := st.Info(ctx)
		if err != nil {
			return err
		}
		n = info.State.Msgs
		return nil
	})
	return n, err
}

// rawDeleteStream deletes stream name (its store and duplicate window).
func rawDeleteStream(ctx context.Context, srv rawServer, name string) error {
	return rawStreamOp(srv, func(js jetstream.JetStream) error { return js.DeleteStream(ctx, name) })
}
