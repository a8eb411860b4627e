package engine

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/natsio"
)

// stalledReader is a source that delivers nothing while its backlog says
// what left(asked) returns: a source stalled with records waiting.
type stalledReader struct {
	identity natsio.StreamIdentity
	asked    atomic.Int32
	left     func(asked int32) uint64
}

func (r *stalledReader) Fetch(ctx context.Context, _ int, maxWait time.Duration) ([]natsio.Message, error) {
	select {
	case <-time.After(maxWait):
		return nil, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (r *stalledReader) Identity() natsio.StreamIdentity { return r.identity }

func (r *stalledReader) Backlog(_ context.Context, after uint64) (natsio.Backlog, error) {
	n := r.asked.Add(1)
	return natsio.Backlog{Stream: r.identity.Stream, Consumer: "fake", After: after, Undelivered: r.left(n)}, nil
}

func (r *stalledReader) Close() {}

// runStalled runs a sum pipeline whose source "a" is replaced by r, with
// --stop-when-idle 100ms and a stall limit of a second.
func runStalled(t *testing.T, r *stalledReader) error {
	t.Helper()
	defer func(d time.Duration) { minStall = d }(minStall)
	minStall = time.Second
	cfg := newSumSetup(t, 1).load(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := Open(ctx, cfg, quietOptions(t, Options{StopWhenIdle: 100 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	s := p.sources[0]
	s.src.Close()
	r.identity = s.src.Identity()
	s.src = r
	return p.Run(ctx)
}

// TestStopWhenIdleWaitsForPendingInput: a source that delivers nothing
// while records wait for it is not idle; the run stops once nothing is
// left.
func TestStopWhenIdleWaitsForPendingInput(t *testing.T) {
	r := &stalledReader{left: func(asked int32) uint64 { return uint64(max(3-asked, 0)) }}
	if err := runStalled(t, r); err != nil {
		t.Fatal(err)
	}
	if r.asked.Load() < 4 {
		t.Fatalf("backlog asked %d times; the run stopped before the source's backlog was empty", r.asked.Load())
	}
}

// TestStopWhenIdleFailsOnAStalledSource: a source that stays stalled with
// records waiting ends the run with ErrInputPending naming it, not with a
// normal stop.
func TestStopWhenIdleFailsOnAStalledSource(t *testing.T) {
	r := &stalledReader{left: func(int32) uint64 { return 264_431 }}
	err := runStalled(t, r)
	if !errors.Is(err, ErrInputPending) || !strings.Contains(err.Error(), `source "a"`) || !strings.Contains(err.Error(), "264431 records not delivered") {
		t.Fatalf("err = %v; want ErrInputPending naming source a and its 264431 records", err)
	}
}

// TestStopWhenIdleReportsLateInput: records that arrive between the idle
// check and the final checkpoint are not processed, and the run says so.
func TestStopWhenIdleReportsLateInput(t *testing.T) {
	var stopping atomic.Bool
	r := &stalledReader{left: func(int32) uint64 {
		if stopping.Swap(true) {
			return 7 // the check after the final checkpoint
		}
		return 0
	}}
	err := runStalled(t, r)
	if !errors.Is(err, ErrInputPending) || !strings.Contains(err.Error(), "stopped as idle") || !strings.Contains(err.Error(), "7 records") {
		t.Fatalf("err = %v; want ErrInputPending for the 7 records that arrived before the final checkpoint", err)
	}
}
