package natsio

import (
	"errors"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
)

// TestAckingSourceCrashBetweenCheckpointAndAck: the checkpoint covered 1..6
// but the process died before acknowledging. The new source must not
// deliver 1..6 again, and must acknowledge them.
func TestAckingSourceCrashBetweenCheckpointAndAck(t *testing.T) {
	c := embedded(t)
	retentionStream(t, c, "JOBS", jetstream.WorkQueuePolicy, "jobs.>")
	publishMany(t, c, "jobs.x", 10)
	a := openAcking(t, c, AckingSourceSpec{Stream: "JOBS", Durable: "p", StartSequence: 1})
	fetchAckingN(t, a, 10)
	a.Close()

	b := openAcking(t, c, AckingSourceSpec{Stream: "JOBS", Durable: "p", StartSequence: 7})
	wantSeqs(t, fetchAckingN(t, b, 4), 7)
	ackThrough(t, b, 10) // confirmed after the skipped ones, sent earlier on the same connection
	if n := streamMsgs(t, c, "JOBS"); n != 0 {
		t.Fatalf("the work queue holds %d messages, want 0", n)
	}
}

// TestAckingSourceAckedPastStart: the durable acknowledged 1..8 but the
// resume position is 5 (an older checkpoint): 5..8 are gone.
func TestAckingSourceAckedPastStart(t *testing.T) {
	c := embedded(t)
	retentionStream(t, c, "JOBS", jetstream.WorkQueuePolicy, "jobs.>")
	publishMany(t, c, "jobs.x", 10)
	a := openAcking(t, c, AckingSourceSpec{Stream: "JOBS", Durable: "p", StartSequence: 1})
	fetchAckingN(t, a, 10)
	ackThrough(t, a, 8)
	a.Close()

	_, err := c.OpenAckingSource(testCtx(t), AckingSourceSpec{Stream: "JOBS", Durable: "p", StartSequence: 5})
	if !errors.Is(err, ErrSequenceGap) || !strings.Contains(err.Error(), "durable consumer p") || !strings.Contains(err.Error(), "5..8") {
		t.Fatalf("err = %v, want ErrSequenceGap naming the durable and 5..8", err)
	}
	b := openAcking(t, c, AckingSourceSpec{Stream: "JOBS", Durable: "p", StartSequence: 5, AllowGap: true})
	wantSeqs(t, fetchAckingN(t, b, 2), 9)
}
