package natsio

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// smallMaxPayload is the max_payload of the tests' embedded server.
const smallMaxPayload = 8 << 10

// withWireSize returns m with data padded so that WireSize(m) is size.
func withWireSize(t *testing.T, m OutMessage, size int) OutMessage {
	t.Helper()
	m.Data = nil
	m.Data = make([]byte, size-WireSize(m))
	if WireSize(m) != size {
		t.Fatalf("WireSize %d, want %d", WireSize(m), size)
	}
	return m
}

// WireSize is exactly what nats.go and the server check against
// max_payload: a message of max_payload is stored, one byte more is
// refused, whatever its headers and message id.
func TestWireSizeIsTheMaxPayloadCheck(t *testing.T) {
	c, err := Connect(testCtx(t), ServerOptions{StoreDir: t.TempDir(), EmbeddedPort: RandomPort, MaxPayload: smallMaxPayload})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := c.MaxPayload(); got != smallMaxPayload {
		t.Fatalf("MaxPayload() = %d, want the configured %d", got, smallMaxPayload)
	}
	ensureStream(t, c, "OUT", "out.>")
	msgs := []OutMessage{
		{Subject: "out.plain"},
		{Subject: "out.with-id", MsgID: "pipeline.op.src.17.0"},
		{Subject: "out.headers", MsgID: "id-2", Header: nats.Header{"Trace": {"abc"}, "Nats-Batch-Id": {"dropped"}, "Multi": {"a", "b"}}},
	}
	for _, m := range msgs {
		fits := withWireSize(t, m, smallMaxPayload)
		if err := publishOne(testCtx(t), c, fits); err != nil {
			t.Errorf("%s: a message of WireSize = max_payload failed: %v", m.Subject, err)
		}
		over := withWireSize(t, m, smallMaxPayload+1)
		if err := publishOne(testCtx(t), c, over); !errors.Is(err, nats.ErrMaxPayload) {
			t.Errorf("%s: a message of WireSize = max_payload+1: %v, want nats.ErrMaxPayload", m.Subject, err)
		}
	}
}

func publishOne(ctx context.Context, c *Conn, m OutMessage) error {
	s := c.NewSink(1)
	defer s.Close()
	if err := s.Publish(ctx, m); err != nil {
		return err
	}
	return s.Flush(ctx)
}

// BatchWireSize is never below the size of the message as any batch sends
// it, so a message that fits at staging fits at commit.
func TestBatchWireSizeBoundsEveryBatchMessage(t *testing.T) {
	for _, h := range []nats.Header{nil, {"Trace": {"t"}}, {"Nats-Batch-Id": {"guest"}, "Nats-Batch-Commit": {"1"}, "Nats-Msg-Id": {"x"}}} {
		m := OutMessage{Subject: "out.x", MsgID: "id-1", Header: h, Data: []byte("data")}
		bound, largest := BatchWireSize(m), 0
		for _, id := range []string{"b", strings.Repeat("y", MaxBatchIDLen)} {
			for _, i := range []int{0, 9, MaxAtomicBatch - 1} {
				for _, commit := range []bool{false, true} {
					msg := batchMsg(id, i, m, commit)
					largest = max(largest, msg.Size()-len(msg.Subject))
				}
			}
		}
		if largest != bound {
			t.Errorf("headers %v: the largest batch message has %d bytes, BatchWireSize says %d", h, largest, bound)
		}
	}
}

// WireSize computes, without building it, nats.go's Msg.Size of the
// message Publish sends.
func TestWireSizeIsMsgSizeOfWhatPublishSends(t *testing.T) {
	headers := []nats.Header{
		nil,
		{},
		{"Trace": {"t"}},
		{"Empty": {}},
		{"Padded": {"  v  "}, "Multi": {"a", "b", ""}},
		{jetstream.MsgIDHeader: {"guest-id"}, "Nats-Batch-Id": {"b"}, "nats-batch-sequence": {"2"}},
		{"Nats-Batch-Commit": {"1"}},
	}
	for _, h := range headers {
		for _, id := range []string{"", "pipeline.op.src.17.0"} {
			m := OutMessage{Subject: "out.x", MsgID: id, Header: h, Data: []byte("data")}
			want := (&nats.Msg{Header: withMsgID(h, id), Data: m.Data}).Size()
			if got := WireSize(m); got != want {
				t.Errorf("headers %v, id %q: WireSize %d, Msg.Size %d", h, id, got, want)
			}
		}
	}
}
