package natsio

import (
	"testing"

	"github.com/nats-io/nats.go/jetstream"
)

// TestSourceBacklog: what a source has not handed out yet counts as left,
// whether the server still holds it or it waits on this side; nothing is
// left once every record was fetched.
func TestSourceBacklog(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "BL", "bl.>")
	publishMany(t, c, "bl.a", 10)
	src, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "BL"})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	fetchN(t, src, 4)
	b, err := src.Backlog(testCtx(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	if b.Empty() || b.Undelivered+b.Unfetched != 6 {
		t.Fatalf("after 4 of 10: %s; want 6 left", b)
	}
	fetchN(t, src, 6)
	if b, err = src.Backlog(testCtx(t), 10); err != nil || !b.Empty() {
		t.Fatalf("after 10 of 10: %s, %v; want nothing left", b, err)
	}
}

// TestAckingSourceBacklog: the same for a durable consumer on a work queue.
func TestAckingSourceBacklog(t *testing.T) {
	c := embedded(t)
	if _, err := c.JS.CreateStream(testCtx(t), jetstream.StreamConfig{Name: "BLQ", Subjects: []string{"blq.>"},
		Retention: jetstream.WorkQueuePolicy}); err != nil {
		t.Fatal(err)
	}
	publishMany(t, c, "blq.a", 5)
	a, err := c.OpenAckingSource(testCtx(t), AckingSourceSpec{Stream: "BLQ", Durable: "d"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	fetchN(t, a.src, 2)
	if b, err := a.Backlog(testCtx(t), 2); err != nil || b.Empty() || b.Undelivered+b.Unfetched != 3 {
		t.Fatalf("after 2 of 5: %s, %v; want 3 left", b, err)
	}
	fetchN(t, a.src, 3)
	if b, err := a.Backlog(testCtx(t), 5); err != nil || !b.Empty() {
		t.Fatalf("after 5 of 5: %s, %v; want nothing left", b, err)
	}
}

// TestSourceBacklogWhileThePumpMoves: the backlog asked between fetches,
// while the pump keeps moving deliveries from nats.go into the source's
// buffer, counts every record left exactly once. It used to count a
// delivery twice when the pump took it between the server's answer and
// the count of the buffer, or while it had buffered it but not yet
// cleared its "holding" flag.
func TestSourceBacklogWhileThePumpMoves(t *testing.T) {
	const total = 3000
	c := embedded(t)
	ensureStream(t, c, "BLM", "blm.>")
	publishMany(t, c, "blm.a", total)
	src, err := c.OpenSource(testCtx(t), SourceSpec{Stream: "BLM"})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	taken := 0
	for step := 0; taken < total; step++ {
		taken += len(fetchN(t, src, min(1+step%7, total-taken)))
		b, err := src.Backlog(testCtx(t), uint64(taken))
		if err != nil {
			t.Fatal(err)
		}
		if b.Unknown {
			continue // the ordered consumer was replaced: nothing to count
		}
		if left := b.Undelivered + b.Unfetched; left != uint64(total-taken) {
			t.Fatalf("after %d of %d: %s; want %d left", taken, total, b, total-taken)
		}
	}
}
