package natsio

import (
	"context"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// sourceConn is the connection that Sources and AckingSources read on, one
// per Conn, dialled when the first source opens.
//
// Why not NC: nats.go v1.55.0 sends a pull consumer's next pull request
// from a goroutine that publishes it on the connection and only then marks
// it sent; until then, the iterator skips every new request it would make
// (jetstream/pull.go: checkPending tests fetchInProgress, pullMessages
// clears it after pull returns). A Sink publishing at full rate on the same
// connection keeps the connection's mutex contended, and Go's mutex, once
// starving, hands itself to the next waiter on Unlock and yields: the
// pull goroutine then waits in the run queue for tens of milliseconds
// (measured: up to 28 ms on NC, at most 13 µs on a connection of its own),
// long enough for the whole batch to arrive and be read. The iterator then
// has no request outstanding, and nothing makes it ask again until two
// idle heartbeats (10 s) are missed: the stall of issue 18. On a
// connection of their own the sources' pull requests wait for no
// publisher. The wake-up in source_wake.go covers what is left.
type sourceConn struct {
	mu     sync.Mutex
	nc     *nats.Conn
	js     jetstream.JetStream
	closed chan struct{} // closed by nc's ClosedHandler
}

// sourceJS returns the sources' JetStream context, dialling their
// connection (same server and credentials as NC) on first use.
func (c *Conn) sourceJS(ctx context.Context) (jetstream.JetStream, *nats.Conn, error) {
	sc := &c.sources
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.nc != nil {
		return sc.js, sc.nc, nil
	}
	closed := make(chan struct{})
	nc, js, err := dialNATS(ctx, c.reach.URL, c.reach, "wasmstream-sources", closed)
	if err != nil {
		return nil, nil, err
	}
	sc.nc, sc.js, sc.closed = nc, js, closed
	return js, nc, nil
}

// close drains the sources' connection, if it was dialled.
func (sc *sourceConn) close() {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	closeConn(sc.nc, sc.closed)
}
