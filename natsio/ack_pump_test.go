package natsio

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

func TestAckingSourceStopsAtGap(t *testing.T) {
	c := embedded(t)
	retentionStream(t, c, "JOBS", jetstream.WorkQueuePolicy, "jobs.>")
	publishMany(t, c, "jobs.x", 10)
	st, err := c.JS.Stream(testCtx(t), "JOBS")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteMsg(testCtx(t), 5); err != nil {
		t.Fatal(err)
	}
	a := openAcking(t, c, AckingSourceSpec{Stream: "JOBS", Durable: "p", StartSequence: 1})
	wantSeqs(t, fetchAckingN(t, a, 4), 1)
	_, err = a.Fetch(testCtx(t), 10, testTimeout)
	if !errors.Is(err, ErrSequenceGap) || !strings.Contains(err.Error(), "5..5") {
		t.Fatalf("Fetch over a deleted message = %v, want ErrSequenceGap for 5..5", err)
	}
}

// TestAckingSourceDropsRedeliveries uses a short AckWait so that the server
// delivers the unacknowledged messages again: none may reach Fetch twice.
func TestAckingSourceDropsRedeliveries(t *testing.T) {
	c := embedded(t)
	retentionStream(t, c, "JOBS", jetstream.WorkQueuePolicy, "jobs.>")
	publishMany(t, c, "jobs.x", 5)
	a := openAcking(t, c, AckingSourceSpec{Stream: "JOBS", Durable: "p", StartSequence: 1, AckWait: 50 * time.Millisecond})
	wantSeqs(t, fetchAckingN(t, a, 5), 1)
	waitRedelivered(t, c, "JOBS", "p", 5)
	publishSync(t, c, "jobs.x", "new")
	if m := fetchAckingN(t, a, 1)[0]; m.Sequence != 6 {
		t.Fatalf("after redeliveries the source delivered sequence %d, want 6", m.Sequence)
	}
	if n := a.Unacknowledged(); n != 6 {
		t.Fatalf("Unacknowledged() = %d, want 6", n)
	}
	ackThrough(t, a, 6)
	if n := streamMsgs(t, c, "JOBS"); n != 0 {
		t.Fatalf("the work queue holds %d messages", n)
	}
}

// waitRedelivered waits until the server redelivered at least n messages.
func waitRedelivered(t testing.TB, c *Conn, stream, durable string, n int) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for {
		cons, err := c.JS.Consumer(testCtx(t), stream, durable)
		if err != nil {
			t.Fatal(err)
		}
		if cons.CachedInfo().NumRedelivered >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no redelivery within %s", testTimeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestAckingSourceCheckDelivery(t *testing.T) {
	a := &AckingSource{spec: AckingSourceSpec{Stream: "S", Durable: "d"}}
	for _, dseq := range []uint64{1, 2, 3, 2, 3, 4} { // 2, 3 again: repeats after a server restart
		if err := a.checkDelivery(dseq); err != nil {
			t.Fatalf("checkDelivery(%d): %v", dseq, err)
		}
	}
	if err := a.checkDelivery(6); !errors.Is(err, ErrDeliveryLost) || !strings.Contains(err.Error(), "durable consumer d") {
		t.Fatalf("checkDelivery(6) after 4 = %v, want ErrDeliveryLost", err)
	}
}

// TestAckingSourceLiveServerRestart restarts the server while the source
// reads. Deliveries in flight may be lost: the source must then stop with
// ErrDeliveryLost (never skip them), and a source reopened at the last
// checkpoint (here: nothing acknowledged, start 1) gets every message.
func TestAckingSourceLiveServerRestart(t *testing.T) {
	const n = 5000
	dir := t.TempDir()
	srv := embeddedAt(t, dir, RandomPort)
	port := portOf(t, srv.ClientURL())
	c := external(t, srv.ClientURL())
	retentionStream(t, c, "JOBS", jetstream.WorkQueuePolicy, "jobs.>")
	publishMany(t, c, "jobs.x", n)
	a := openAcking(t, c, AckingSourceSpec{Stream: "JOBS", Durable: "p", StartSequence: 1})
	got := fetchAckingN(t, a, 100)
	srv.Close()
	embeddedAt(t, dir, port)
	waitConnected(t, c)
	for len(got) < n {
		batch, err := a.Fetch(testCtx(t), n, testTimeout)
		if err != nil {
			if !errors.Is(err, ErrDeliveryLost) {
				t.Fatalf("after %d messages: %v, want ErrDeliveryLost", len(got), err)
			}
			t.Logf("after %d messages: %v", len(got), err)
			break
		}
		if batch == nil {
			t.Fatalf("no message for %s after %d", testTimeout, len(got))
		}
		got = append(got, batch...)
	}
	wantSeqs(t, got, 1)
	a.Close()
	b := openAcking(t, c, AckingSourceSpec{Stream: "JOBS", Durable: "p", StartSequence: 1})
	wantSeqs(t, fetchAckingN(t, b, n), 1)
}
