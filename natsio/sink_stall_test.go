package natsio

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// sinkWithALostAnswer returns a sink (with options o) that published
// message "a" to out.x and lost its answer while connected: a plain
// subscriber took the message and never answered. The stream OUT captures
// out.> only after that, so a resend of "a" is stored.
func sinkWithALostAnswer(t *testing.T, o SinkOptions) (*Sink, jetstream.JetStream, context.Context) {
	t.Helper()
	c := embeddedAt(t, t.TempDir(), RandomPort)
	js, err := jetstream.New(c.NC)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "OUT", Subjects: []string{"kept.>"}}); err != nil {
		t.Fatal(err)
	}
	swallowed := make(chan struct{}, 1)
	sub, err := c.NC.Subscribe("out.x", func(*nats.Msg) { swallowed <- struct{}{} })
	if err != nil {
		t.Fatal(err)
	}
	s := c.NewSinkWith(o)
	t.Cleanup(func() { s.Close() })
	if err := s.Publish(ctx, OutMessage{Subject: "out.x", MsgID: "a", Data: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	<-swallowed
	if err := sub.Unsubscribe(); err != nil {
		t.Fatal(err)
	}
	if _, err := js.UpdateStream(ctx, jetstream.StreamConfig{Name: "OUT", Subjects: []string{"kept.>", "out.>"}}); err != nil {
		t.Fatal(err)
	}
	return s, js, ctx
}

// storedIn fails t unless stream OUT holds want messages.
func storedIn(t *testing.T, ctx context.Context, js jetstream.JetStream, want uint64) {
	t.Helper()
	info, err := js.Stream(ctx, "OUT")
	if err != nil {
		t.Fatal(err)
	}
	if n := info.CachedInfo().State.Msgs; n != want {
		t.Errorf("stream OUT holds %d messages, want %d", n, want)
	}
}

// A publish whose answer never comes while the connection stays up (the
// stream's leader died after its node took the message) is sent again,
// with its id, once Flush has waited StallResend without any answer, and
// Flush then succeeds with the message stored once.
func TestSinkResendsAPublishThatLostItsAnswer(t *testing.T) {
	s, js, ctx := sinkWithALostAnswer(t, SinkOptions{StallResend: 300 * time.Millisecond})
	flushCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := s.Flush(flushCtx); err != nil {
		t.Fatalf("Flush = %v, want nil: the lost publish should have been sent again", err)
	}
	st := s.Stats()
	if st.Acked != 1 || st.Failed != 0 || st.Unstuck == 0 || st.Resent == 0 {
		t.Errorf("stats %+v, want 1 acked, 0 failed, at least one unsticking and one resend", st)
	}
	storedIn(t, ctx, js, 1)
}

// A Publish that waits for a slot, every slot held by publishes whose
// answers were lost, sends them again as Flush does, and takes a slot:
// before, it waited for ever, and with it the task, its source's routing
// and the next checkpoint.
func TestSinkPublishWaitingForASlotResendsLostAnswers(t *testing.T) {
	s, js, ctx := sinkWithALostAnswer(t, SinkOptions{MaxPending: 1, StallResend: 300 * time.Millisecond})
	pubCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := s.Publish(pubCtx, OutMessage{Subject: "out.x", MsgID: "b", Data: []byte("y")}); err != nil {
		t.Fatalf("Publish with every slot held by a lost answer = %v, want nil once it was sent again", err)
	}
	if err := s.Flush(pubCtx); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if st.Acked != 2 || st.Failed != 0 || st.Unstuck == 0 {
		t.Errorf("stats %+v, want 2 acked, 0 failed, at least one unsticking", st)
	}
	storedIn(t, ctx, js, 2)
}
