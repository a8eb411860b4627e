package worker

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// A checkpoint this worker has not acked is given up once its failure is
// announced or a newer checkpoint is triggered; a completed one, an
// older trigger or another checkpoint's failure do not give it up.
func TestGivenUp(t *testing.T) {
	announce := func(b *outcomeBoard, o outcome) { b.onMessage(&nats.Msg{Data: mustJSON(o)}) }
	for _, c := range []struct {
		name string
		do   func(*outcomeBoard)
		want string // "" when not given up
	}{
		{"nothing known", func(*outcomeBoard) {}, ""},
		{"its own trigger", func(b *outcomeBoard) { b.triggered(7) }, ""},
		{"an older trigger", func(b *outcomeBoard) { b.triggered(6) }, ""},
		{"completed", func(b *outcomeBoard) { announce(b, outcome{Checkpoint: 7, Completed: true}) }, ""},
		{"another's failure", func(b *outcomeBoard) { announce(b, outcome{Checkpoint: 6, Error: "x"}) }, ""},
		{"its failure", func(b *outcomeBoard) { announce(b, outcome{Checkpoint: 7, Error: "no ack within 1m"}) }, "checkpoint 7: no ack within 1m"},
		{"a newer trigger", func(b *outcomeBoard) { b.triggered(7); b.triggered(8) }, "the coordinator has triggered checkpoint 8 since"},
	} {
		b := newOutcomeBoard()
		c.do(b)
		_, err := b.givenUp(7)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: given up: %v", c.name, err)
		case c.want != "" && (!errors.Is(err, errAborted) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want errAborted with %q", c.name, err, c.want)
		}
	}
}

// cancelWhenGivenUp cancels with the reason as soon as the checkpoint is
// given up while it waits, and stops waiting when its context ends.
func TestCancelWhenGivenUp(t *testing.T) {
	b := newOutcomeBoard()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	done := make(chan struct{})
	go func() { b.cancelWhenGivenUp(ctx, 3, cancel); close(done) }()
	b.triggered(3)
	select {
	case <-ctx.Done():
		t.Fatalf("cancelled by its own trigger: %v", context.Cause(ctx))
	case <-time.After(50 * time.Millisecond):
	}
	b.triggered(4)
	<-done
	if cause := context.Cause(ctx); !errors.Is(cause, errAborted) {
		t.Fatalf("cause %v, want errAborted", cause)
	}

	quiet, stop := context.WithCancelCause(context.Background())
	ended := make(chan struct{})
	go func() { b.cancelWhenGivenUp(quiet, 9, stop); close(ended) }()
	stop(nil)
	<-ended
	if cause := context.Cause(quiet); cause != context.Canceled {
		t.Fatalf("cause %v after the context ended, want context.Canceled", cause)
	}
}

// fail reports whether the part had not given its share: only such a
// failure keeps the worker from acking, so only it is declined.
func TestAckGatherFailReportsAMissingShare(t *testing.T) {
	p1, p2 := &part{}, &part{}
	g := newAckGather(&worker{id: "w1"}, trigger{Checkpoint: 4}, []*part{p1, p2})
	g.add(p1, share{})
	if g.fail(p1, errors.New("late")) {
		t.Error("fail of a part that gave its share reported a missing share")
	}
	if !g.fail(p2, errors.New("refused")) {
		t.Error("fail of a part that had not given its share did not report it")
	}
	if g.fail(p2, errors.New("again")) {
		t.Error("a second fail of the same part reported a missing share")
	}
}
