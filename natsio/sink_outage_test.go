package natsio

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// serverOutage is how long the outage tests keep the server down: longer
// than a reconnect attempt, well within the default outage budget.
const serverOutage = 2 * time.Second

// restartable is an embedded server that a test stops and starts again on
// the same store and port, with a client of its own that outlives it.
type restartable struct {
	dir  string
	port int
	srv  *Conn
}

func newRestartable(t *testing.T) (*restartable, *Conn) {
	t.Helper()
	r := &restartable{dir: t.TempDir()}
	r.srv = embeddedAt(t, r.dir, RandomPort)
	r.port = portOf(t, r.srv.ClientURL())
	return r, external(t, r.srv.ClientURL())
}

// stop shuts the server down; start (from any goroutine) starts it again.
func (r *restartable) stop() { r.srv.Close() }

func (r *restartable) start(t *testing.T) error {
	c, err := Connect(testCtx(t), ServerOptions{StoreDir: r.dir, EmbeddedPort: r.port})
	if err != nil {
		return err
	}
	t.Cleanup(c.Close)
	r.srv = c
	return nil
}

// TestSinkRidesOutServerRestart stops the server while publishes are in
// flight and starts it again, on the same store and port, a few seconds
// later: every publish is acknowledged, none fails, and the stream holds
// each message exactly once (the resends of what the old server had stored
// are dropped by their message ids).
func TestSinkRidesOutServerRestart(t *testing.T) {
	r, c := newRestartable(t)
	ensureStream(t, c, "OUT", "out.>")
	s := c.NewSink(0)
	defer s.Close()
	ctx := testCtx(t)
	const n = 20000
	restarted := make(chan error, 1)
	for i := range n {
		if i == n/2 {
			r.stop() // publishes in flight lose their acks
			go func() {
				time.Sleep(serverOutage)
				restarted <- r.start(t)
			}()
		}
		if err := s.Publish(ctx, OutMessage{Subject: "out.x", MsgID: fmt.Sprint(i), Data: []byte("x")}); err != nil {
			t.Fatalf("publish %d during the outage: %v", i, err)
		}
	}
	if err := <-restarted; err != nil {
		t.Fatalf("restart the server: %v", err)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatalf("Flush after the restart = %v, want nil: the outage is shorter than the budget", err)
	}
	st := s.Stats()
	if st.Pending != 0 || st.Failed != 0 || st.Acked != n {
		t.Fatalf("Stats() = %+v, want all %d acknowledged", st, n)
	}
	if got := streamMsgs(t, c, "OUT"); got != n {
		t.Fatalf("stream holds %d messages, want each of the %d once", got, n)
	}
	t.Logf("stats %+v", st)
}

// TestSinkOutagePastBudget keeps the server down longer than the budget:
// the publishes fail with ErrUnreachable, naming the server and the budget,
// and the failure is an outage (IsOutage), not a refusal.
func TestSinkOutagePastBudget(t *testing.T) {
	r, c := newRestartable(t)
	ensureStream(t, c, "OUT", "out.>")
	s := c.NewSinkWith(SinkOptions{OutageBudget: 500 * time.Millisecond})
	defer s.Close()
	ctx := testCtx(t)
	r.stop()
	for i := range 10 {
		if err := s.Publish(ctx, OutMessage{Subject: "out.x", MsgID: fmt.Sprint(i), Data: []byte("x")}); err != nil {
			t.Fatalf("publish %d: %v", i, err)
		}
	}
	err := s.Flush(ctx)
	if !errors.Is(err, ErrUnreachable) || !errors.Is(err, ErrPublish) || !IsOutage(err) {
		t.Fatalf("Flush with the server down past the budget = %v, want ErrUnreachable", err)
	}
	for _, want := range []string{c.ClientURL(), "outage budget of 500ms", "server.outage_budget"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if st := s.Stats(); st.Pending != 0 || st.Failed != 10 {
		t.Fatalf("Stats() = %+v, want 10 failed", st)
	}
}

// TestSinkNoStreamNotRetried: a subject no stream captures fails at once
// even with a long budget, because JetStream answers that no stream
// captures it.
func TestSinkNoStreamNotRetried(t *testing.T) {
	c := embedded(t)
	s := c.NewSinkWith(SinkOptions{OutageBudget: time.Hour})
	defer s.Close()
	ctx := testCtx(t)
	if err := s.Publish(ctx, OutMessage{Subject: "nowhere.x", Data: []byte("1")}); err != nil {
		t.Fatal(err)
	}
	err := s.Flush(ctx) // testCtx bounds it: a blind retry would end there
	if !errors.Is(err, ErrNoStream) || IsOutage(err) || !strings.Contains(err.Error(), "declare a stream") {
		t.Fatalf("Flush = %v, want ErrNoStream that is not an outage", err)
	}
}

// frozenNoticeLimit bounds the wait for a client to notice a frozen
// server. Its pings notice in 2-3 s; nats.go's default ones (every 2m, 2
// outstanding) would take minutes. Not a performance claim.
const frozenNoticeLimit = 30 * time.Second

// TestSinkRidesOutFrozenServer freezes the server (a proxy stops
// forwarding without closing anything) while publishes are in flight: the
// client's pings notice, it reconnects once the server answers again, and
// the sink sends the unacknowledged messages again: all acknowledged, each
// stored once.
func TestSinkRidesOutFrozenServer(t *testing.T) {
	srv := embedded(t)
	ensureStream(t, srv, "OUT", "out.>")
	proxy := testutil.StartFreezeProxyFor(t, srv.ClientURL())
	c := external(t, proxy.URL)
	lost := c.NC.StatusChanged(nats.DISCONNECTED, nats.RECONNECTING)
	s := c.NewSink(0)
	defer s.Close()
	ctx := testCtx(t)
	const n = 4000
	for i := range n {
		if i == n/2 {
			proxy.Freeze()
		}
		if err := s.Publish(ctx, OutMessage{Subject: "out.x", MsgID: fmt.Sprint(i), Data: []byte("x")}); err != nil {
			t.Fatalf("publish %d: %v", i, err)
		}
	}
	select {
	case <-lost:
	case <-time.After(frozenNoticeLimit):
		t.Fatalf("the client did not notice the frozen server within %s: are the pings set?", frozenNoticeLimit)
	}
	proxy.Thaw()
	if err := s.Flush(ctx); err != nil {
		t.Fatalf("Flush after the freeze = %v, want nil", err)
	}
	if st := s.Stats(); st.Failed != 0 || st.Acked != n || st.Resent == 0 {
		t.Fatalf("Stats() = %+v, want all %d acknowledged, some of them resent", st, n)
	}
	if got := streamMsgs(t, srv, "OUT"); got != n {
		t.Fatalf("stream holds %d messages, want each of the %d once", got, n)
	}
}
