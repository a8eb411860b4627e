package natsio

import (
	"errors"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
)

func retentionStream(t testing.TB, c *Conn, name string, retention jetstream.RetentionPolicy, subjects ...string) {
	t.Helper()
	_, err := c.JS.CreateStream(testCtx(t), jetstream.StreamConfig{Name: name, Subjects: subjects, Retention: retention})
	if err != nil {
		t.Fatalf("create stream %s: %v", name, err)
	}
}

func openAcking(t testing.TB, c *Conn, spec AckingSourceSpec) *AckingSource {
	t.Helper()
	a, err := c.OpenAckingSource(testCtx(t), spec)
	if err != nil {
		t.Fatalf("OpenAckingSource %+v: %v", spec, err)
	}
	t.Cleanup(a.Close)
	return a
}

func fetchAckingN(t testing.TB, a *AckingSource, n int) []Message {
	t.Helper()
	return fetchN(t, a.src, n)
}

func seqs(msgs []Message) []uint64 {
	out := make([]uint64, len(msgs))
	for i, m := range msgs {
		out[i] = m.Sequence
	}
	return out
}

func wantSeqs(t testing.TB, msgs []Message, first uint64) {
	t.Helper()
	for i, m := range msgs {
		if m.Sequence != first+uint64(i) {
			t.Fatalf("sequences %v, want %d.. in order", seqs(msgs), first)
		}
	}
}

func ackThrough(t testing.TB, a *AckingSource, seq uint64) {
	t.Helper()
	if err := a.AckThrough(testCtx(t), seq); err != nil {
		t.Fatalf("AckThrough(%d): %v", seq, err)
	}
}

func TestAckingSourceRefusesLimitsStream(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "LOG", "log.>")
	_, err := c.OpenAckingSource(testCtx(t), AckingSourceSpec{Stream: "LOG", Durable: "p"})
	if !errors.Is(err, ErrNeedsNoAcks) || !strings.Contains(err.Error(), "OpenSource") {
		t.Fatalf("err = %v, want ErrNeedsNoAcks pointing to OpenSource", err)
	}
	if _, err := c.OpenAckingSource(testCtx(t), AckingSourceSpec{Stream: "NONE", Durable: "p"}); !errors.Is(err, ErrStreamNotFound) {
		t.Fatalf("missing stream: err = %v", err)
	}
}

func TestAckingSourceSpecValidate(t *testing.T) {
	tests := []struct {
		name string
		spec AckingSourceSpec
		ok   bool
	}{
		{"valid", AckingSourceSpec{Stream: "S", Durable: "d"}, true},
		{"no durable", AckingSourceSpec{Stream: "S"}, false},
		{"durable with dot", AckingSourceSpec{Stream: "S", Durable: "a.b"}, false},
		{"bad stream", AckingSourceSpec{Stream: "a b", Durable: "d"}, false},
		{"bad filter", AckingSourceSpec{Stream: "S", Durable: "d", FilterSubject: "a..b"}, false},
		{"negative ack wait", AckingSourceSpec{Stream: "S", Durable: "d", AckWait: -1}, false},
		{"negative max pending", AckingSourceSpec{Stream: "S", Durable: "d", MaxAckPending: -1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.spec.validate()
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrInvalidStreamSpec)) {
				t.Fatalf("validate() = %v, ok %v", err, tt.ok)
			}
		})
	}
}

// TestAckingSourceAcrossServerRestart: the durable and the unacknowledged
// messages survive a restart of the embedded server.
func TestAckingSourceAcrossServerRestart(t *testing.T) {
	dir := t.TempDir()
	c := embeddedAt(t, dir, RandomPort)
	retentionStream(t, c, "JOBS", jetstream.WorkQueuePolicy, "jobs.>")
	publishMany(t, c, "jobs.x", 10)
	a := openAcking(t, c, AckingSourceSpec{Stream: "JOBS", Durable: "p", StartSequence: 1})
	fetchAckingN(t, a, 10)
	ackThrough(t, a, 4)
	a.Close()
	c.Close()

	c2 := embeddedAt(t, dir, RandomPort)
	b := openAcking(t, c2, AckingSourceSpec{Stream: "JOBS", Durable: "p", StartSequence: 5})
	wantSeqs(t, fetchAckingN(t, b, 6), 5)
	if n := streamMsgs(t, c2, "JOBS"); n != 6 {
		t.Fatalf("after restart the work queue holds %d messages, want 6", n)
	}
}
