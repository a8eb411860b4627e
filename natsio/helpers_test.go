package natsio

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// testTimeout bounds every NATS call in tests, so that a broken behaviour
// fails the test instead of hanging it. It is not a performance assertion.
const testTimeout = 30 * time.Second

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// embedded starts an embedded JetStream server on a random port with a
// fresh store, closed when the test ends.
func embedded(t testing.TB) *Conn {
	t.Helper()
	return embeddedAt(t, t.TempDir(), RandomPort)
}

func embeddedAt(t testing.TB, dir string, port int) *Conn {
	t.Helper()
	c, err := Connect(testCtx(t), ServerOptions{StoreDir: dir, EmbeddedPort: port})
	if err != nil {
		t.Fatalf("Connect embedded: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// external connects to the server at url as an external client.
func external(t testing.TB, url string) *Conn {
	t.Helper()
	return externalWith(t, ServerOptions{URL: url})
}

// externalWith connects with o as an external client.
func externalWith(t testing.TB, o ServerOptions) *Conn {
	t.Helper()
	c, err := Connect(testCtx(t), o)
	if err != nil {
		t.Fatalf("Connect %s: %v", o.URL, err)
	}
	t.Cleanup(c.Close)
	return c
}

func portOf(t testing.TB, clientURL string) int {
	t.Helper()
	u, err := url.Parse(clientURL)
	if err != nil {
		t.Fatal(err)
	}
	p, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func ensureStream(t testing.TB, c *Conn, name string, subjects ...string) *jetstream.StreamInfo {
	t.Helper()
	info, err := c.EnsureStream(testCtx(t), StreamSpec{Name: name, Subjects: subjects})
	if err != nil {
		t.Fatalf("EnsureStream %s: %v", name, err)
	}
	return info
}

// publishSync publishes data to subject and waits for the ack.
func publishSync(t testing.TB, c *Conn, subject string, data string) uint64 {
	t.Helper()
	ack, err := c.JS.Publish(testCtx(t), subject, []byte(data))
	if err != nil {
		t.Fatalf("publish %s: %v", subject, err)
	}
	return ack.Sequence
}

// publishMany publishes n messages "subject-i" to subject.
func publishMany(t testing.TB, c *Conn, subject string, n int) {
	t.Helper()
	s := c.NewSink(0)
	defer s.Close()
	ctx := testCtx(t)
	for i := range n {
		if err := s.Publish(ctx, OutMessage{Subject: subject, Data: fmt.Appendf(nil, "%s-%d", subject, i)}); err != nil {
			t.Fatalf("publish: %v", err)
		}
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatalf("flush: %v", err)
	}
}

// fetchN reads exactly n messages, failing if the source runs dry for a
// whole testTimeout.
func fetchN(t testing.TB, s *Source, n int) []Message {
	t.Helper()
	ctx := testCtx(t)
	var got []Message
	for len(got) < n {
		batch, err := s.Fetch(ctx, n-len(got), testTimeout)
		if err != nil {
			t.Fatalf("Fetch after %d messages: %v", len(got), err)
		}
		if batch == nil {
			t.Fatalf("Fetch timed out after %d of %d messages", len(got), n)
		}
		got = append(got, batch...)
	}
	return got
}

func writeFile(path string) error { return os.WriteFile(path, []byte("x"), 0o600) }

// waitConnected waits for c to reconnect after a server restart.
func waitConnected(t testing.TB, c *Conn) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for !c.NC.IsConnected() {
		if time.Now().After(deadline) {
			t.Fatalf("no reconnect within %s", testTimeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
