package worker

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A part publishes while confirmed; past that its outputs wait for the
// next confirmation (asking for one), and a stop ends the wait with an
// error.
func TestFence(t *testing.T) {
	f := newFence()
	asked := make(chan struct{}, 16)
	ask := func() { asked <- struct{}{} }
	ctx := context.Background()

	f.confirm(time.Now().Add(time.Minute))
	if err := f.wait(ctx, ask); err != nil || len(asked) != 0 {
		t.Fatalf("confirmed: wait = %v, asked %d times; want nil without asking", err, len(asked))
	}
	f = newFence()
	f.confirm(time.Now().Add(-time.Millisecond))
	done := make(chan error, 1)
	go func() { done <- f.wait(ctx, ask) }()
	<-asked
	select {
	case err := <-done:
		t.Fatalf("expired: wait returned %v before a confirmation", err)
	case <-time.After(50 * time.Millisecond):
	}
	f.confirm(time.Now().Add(time.Minute))
	if err := <-done; err != nil {
		t.Fatalf("after a confirmation: %v", err)
	}

	f = newFence()
	go func() { done <- f.wait(ctx, ask) }()
	<-asked
	f.stop()
	if err := <-done; !errors.Is(err, errFenced) {
		t.Fatalf("stopped: %v, want errFenced", err)
	}
	if w := confirmWindow(5*time.Second, 2*time.Second); w != 3*time.Second {
		t.Errorf("window for 5s + 2s: %s, want 3s", w)
	}
}
