package natsio

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// frozenRequestLimit is how long a 1 s request may take before the test
// calls it blocked: far above its own deadline and a dial attempt.
const frozenRequestLimit = 20 * time.Second

// A client that connected with a long deadline and then reconnects to a
// server that accepts TCP but never answers (SIGSTOPped) must not hold its
// connection's lock for that whole deadline on each attempt: a request
// with a deadline of its own ends near it. The first connect's deadline
// once became every reconnect's handshake timeout, so every publish and
// request of a worker waited out a frozen node for tens of seconds.
func TestRequestEndsWhileReconnectingToAFrozenServer(t *testing.T) {
	srv := embedded(t)
	proxy := testutil.StartFreezeProxyFor(t, srv.ClientURL())
	long, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c, err := Connect(long, ServerOptions{URL: proxy.URL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	lost := c.NC.StatusChanged(nats.DISCONNECTED, nats.RECONNECTING)
	proxy.Freeze()
	select {
	case <-lost:
	case <-time.After(frozenNoticeLimit):
		t.Fatalf("the client did not notice the frozen server within %s", frozenNoticeLimit)
	}
	time.Sleep(time.Second) // a reconnect attempt is under way on the frozen proxy
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err := c.NC.RequestWithContext(ctx, "nobody.listens", nil)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !(errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) || errors.Is(err, nats.ErrNoResponders)) {
			t.Fatalf("request while reconnecting to a frozen server: %v, want its deadline to end it", err)
		}
	case <-time.After(frozenRequestLimit):
		t.Fatalf("a 1 s request still blocked after %s: the reconnect holds the connection's lock", frozenRequestLimit)
	}
}
