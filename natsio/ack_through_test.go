package natsio

import (
	"testing"

	"github.com/nats-io/nats.go/jetstream"
)

// TestAckingSourceWorkQueue: messages acknowledged through N are removed,
// the rest stay and go to a new source started at N+1 after a crash
// (Close without acknowledging).
func TestAckingSourceWorkQueue(t *testing.T) {
	c := embedded(t)
	retentionStream(t, c, "JOBS", jetstream.WorkQueuePolicy, "jobs.>")
	publishMany(t, c, "jobs.x", 10)
	a := openAcking(t, c, AckingSourceSpec{Stream: "JOBS", Durable: "pipeline", StartSequence: 1})
	wantSeqs(t, fetchAckingN(t, a, 10), 1)
	ackThrough(t, a, 6)
	if n := streamMsgs(t, c, "JOBS"); n != 4 {
		t.Fatalf("after AckThrough(6) the work queue holds %d messages, want 4", n)
	}
	if n := a.Unacknowledged(); n != 4 {
		t.Fatalf("Unacknowledged() = %d, want 4", n)
	}
	ackThrough(t, a, 3) // below what is acknowledged: nothing to do
	a.Close()           // crash: 7..10 delivered, never acknowledged

	b := openAcking(t, c, AckingSourceSpec{Stream: "JOBS", Durable: "pipeline", StartSequence: 7})
	wantSeqs(t, fetchAckingN(t, b, 4), 7)
	publishSync(t, c, "jobs.x", "marker")
	if m := fetchAckingN(t, b, 1)[0]; m.Sequence != 11 {
		t.Fatalf("after 7..10 the source delivered sequence %d, want the new message 11", m.Sequence)
	}
	ackThrough(t, b, 11)
	if n := streamMsgs(t, c, "JOBS"); n != 0 {
		t.Fatalf("the work queue holds %d messages after all were acknowledged", n)
	}
}

func TestAckingSourceInterest(t *testing.T) {
	c := embedded(t)
	retentionStream(t, c, "EVENTS", jetstream.InterestPolicy, "ev.>")
	// Interest streams keep only what a consumer is interested in: the
	// durable must exist before publishing.
	a := openAcking(t, c, AckingSourceSpec{Stream: "EVENTS", Durable: "p"})
	publishMany(t, c, "ev.x", 10)
	wantSeqs(t, fetchAckingN(t, a, 10), 1)
	ackThrough(t, a, 6)
	if n := streamMsgs(t, c, "EVENTS"); n != 4 {
		t.Fatalf("after AckThrough(6) the stream holds %d messages, want 4", n)
	}
	a.Close()
	b := openAcking(t, c, AckingSourceSpec{Stream: "EVENTS", Durable: "p", StartSequence: 7})
	wantSeqs(t, fetchAckingN(t, b, 4), 7)
	ackThrough(t, b, 100) // beyond the last delivered: acknowledges all delivered
	if n := streamMsgs(t, c, "EVENTS"); n != 0 {
		t.Fatalf("the stream holds %d messages, want 0", n)
	}
}

func TestAckingSourceFiltered(t *testing.T) {
	c := embedded(t)
	retentionStream(t, c, "JOBS", jetstream.WorkQueuePolicy, "jobs.>")
	for range 3 {
		publishSync(t, c, "jobs.a", "a")
		publishSync(t, c, "jobs.b", "b")
	}
	a := openAcking(t, c, AckingSourceSpec{Stream: "JOBS", Durable: "only-a", FilterSubject: "jobs.a", StartSequence: 1})
	got := fetchAckingN(t, a, 3)
	if s := seqs(got); s[0] != 1 || s[1] != 3 || s[2] != 5 {
		t.Fatalf("filtered sequences %v, want [1 3 5]", s)
	}
	ackThrough(t, a, 4)
	if n := streamMsgs(t, c, "JOBS"); n != 4 {
		t.Fatalf("the work queue holds %d messages, want 4 (3 of jobs.b, 1 of jobs.a)", n)
	}
}
