package natsio

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

func TestSinkDeduplicatesByMsgID(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "OUT", "out.>")
	s := c.NewSink(0)
	defer s.Close()
	ctx := testCtx(t)
	for _, id := range []string{"e-1", "e-2", "e-1"} {
		if err := s.Publish(ctx, OutMessage{Subject: "out.x", MsgID: id, Data: []byte(id)}); err != nil {
			t.Fatal(err)
		}
		if err := s.Flush(ctx); err != nil { // one at a time: the order of the acks is known
			t.Fatal(err)
		}
	}
	st := s.Stats()
	if st.Published != 3 || st.Acked != 3 || st.Duplicates != 1 || st.Failed != 0 || st.Pending != 0 {
		t.Fatalf("Stats() = %+v, want 3 published and acked, 1 duplicate", st)
	}
	info, err := c.JS.Stream(ctx, "OUT")
	if err != nil {
		t.Fatal(err)
	}
	if n := info.CachedInfo().State.Msgs; n != 2 {
		t.Fatalf("stream holds %d messages, want 2", n)
	}
}

func TestSinkHeaders(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "OUT", "out.>")
	s := c.NewSink(0)
	defer s.Close()
	ctx := testCtx(t)
	extra := nats.Header{"Trace": {"t1"}}
	if err := s.Publish(ctx, OutMessage{Subject: "out.x", MsgID: "id-1", Data: []byte("d"), Header: extra}); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if len(extra) != 1 {
		t.Fatalf("Publish modified the caller's header: %v", extra)
	}
	src, err := c.OpenSource(ctx, SourceSpec{Stream: "OUT"})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m := fetchN(t, src, 1)[0]
	if m.Header.Get("Trace") != "t1" || m.Header.Get("Nats-Msg-Id") != "id-1" {
		t.Fatalf("stored headers = %v", m.Header)
	}
}

func TestSinkFlushReportsMissingStream(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "OUT", "out.>")
	s := c.NewSink(0)
	defer s.Close()
	ctx := testCtx(t)
	if err := s.Publish(ctx, OutMessage{Subject: "out.ok", Data: []byte("1")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Publish(ctx, OutMessage{Subject: "nowhere.x", Data: []byte("2")}); err != nil {
		t.Fatal(err) // not known yet: the publish is asynchronous
	}
	err := s.Flush(ctx)
	if !errors.Is(err, ErrNoStream) || !strings.Contains(err.Error(), `"nowhere.x"`) || !strings.Contains(err.Error(), "declare a stream") {
		t.Fatalf("Flush() = %v, want ErrNoStream naming nowhere.x", err)
	}
	if st := s.Stats(); st.Acked != 1 || st.Failed != 1 {
		t.Fatalf("Stats() = %+v, want 1 acked, 1 failed", st)
	}
	// The failure is sticky: the epoch cannot complete any more.
	if err := s.Publish(ctx, OutMessage{Subject: "out.ok", Data: []byte("3")}); !errors.Is(err, ErrNoStream) {
		t.Fatalf("Publish after a failure = %v, want the failure", err)
	}
	if err := s.Flush(ctx); !errors.Is(err, ErrNoStream) {
		t.Fatalf("second Flush = %v, want the failure again", err)
	}
}

func TestSinkBackpressure(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "OUT", "out.>")
	s := c.NewSink(2)
	defer s.Close()
	ctx := testCtx(t)
	for i := range 500 {
		if err := s.Publish(ctx, OutMessage{Subject: "out.x", MsgID: fmt.Sprint(i), Data: []byte("x")}); err != nil {
			t.Fatalf("publish %d: %v", i, err)
		}
		if p := s.Stats().Pending; p > 2 {
			t.Fatalf("%d pending with maxPending 2", p)
		}
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Acked != 500 || st.Duplicates != 0 {
		t.Fatalf("Stats() = %+v", st)
	}
}

func TestSinkPublishBlockedHonoursContext(t *testing.T) {
	c := embedded(t)
	// A plain subscriber that never replies keeps the only slot taken.
	sub, err := c.NC.SubscribeSync("blackhole.>")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	s := c.NewSink(1)
	defer s.Close()
	if err := s.Publish(testCtx(t), OutMessage{Subject: "blackhole.x", Data: []byte("1")}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Publish(ctx, OutMessage{Subject: "blackhole.x", Data: []byte("2")}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Publish with a full sink and a cancelled context = %v", err)
	}
	if err := s.Flush(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Flush with a cancelled context = %v", err)
	}
	if st := s.Stats(); st.Published != 1 || st.Pending != 1 {
		t.Fatalf("Stats() = %+v, want the first publish still pending", st)
	}
}

func TestSinkFlushFailsLostAcks(t *testing.T) {
	c := embedded(t)
	// A plain subscriber takes the publish and never replies, as if the
	// acknowledgement were lost.
	sub, err := c.NC.SubscribeSync("blackhole.>")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	// The connection is up, so nothing is sent again: the publishes fail
	// once no acknowledgement arrived for the outage budget.
	s := c.NewSinkWith(SinkOptions{OutageBudget: 200 * time.Millisecond})
	defer s.Close()
	s.ackTimeout = 50 * time.Millisecond
	ctx := testCtx(t)
	for i := range 3 {
		if err := s.Publish(ctx, OutMessage{Subject: "blackhole.x", MsgID: fmt.Sprint(i), Data: []byte("x")}); err != nil {
			t.Fatal(err)
		}
	}
	err = s.Flush(ctx)
	if !errors.Is(err, ErrPublish) || !strings.Contains(err.Error(), "not acknowledged") {
		t.Fatalf("Flush = %v, want ErrPublish about a missing acknowledgement", err)
	}
	if st := s.Stats(); st.Failed != 3 || st.Pending != 0 {
		t.Fatalf("Stats() = %+v, want 3 failed", st)
	}
}

func TestSinkClose(t *testing.T) {
	c := embedded(t)
	s := c.NewSink(0)
	s.Close()
	if err := s.Publish(testCtx(t), OutMessage{Subject: "out.x"}); !errors.Is(err, ErrSinkClosed) {
		t.Fatalf("Publish after Close = %v", err)
	}
}

// BenchmarkSinkPublish measures asynchronous publishing of 100-byte
// messages with message ids to an embedded server, acks included.
func BenchmarkSinkPublish(b *testing.B) {
	c := embedded(b)
	if _, err := c.EnsureStream(context.Background(), StreamSpec{Name: "B", Subjects: []string{"b.>"}}); err != nil {
		b.Fatal(err)
	}
	s := c.NewSink(0)
	defer s.Close()
	ctx := context.Background()
	payload := make([]byte, 100)
	ids := make([]string, b.N)
	for i := range ids {
		ids[i] = fmt.Sprint("id-", i)
	}
	b.SetBytes(int64(len(payload)))
	b.ResetTimer()
	for i := range b.N {
		if err := s.Publish(ctx, OutMessage{Subject: "b.x", MsgID: ids[i], Data: payload}); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}
