package lease_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/cluster/lease"
)

// ctx5 is a context for one call, bounded like a nats.go default.
func ctx5(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func ensureBucket(t *testing.T, js jetstream.JetStream, name string) *lease.Bucket {
	t.Helper()
	b, err := lease.EnsureBucket(ctx5(t), js, name, 3)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func acquire(t *testing.T, b *lease.Bucket, key, holder string, ttl time.Duration) *lease.Lease {
	t.Helper()
	l, err := b.Acquire(ctx5(t), key, holder, ttl)
	if err != nil {
		t.Fatalf("%s acquires %s: %v", holder, key, err)
	}
	return l
}

// retry calls fn until it returns nil, a sentinel of the lease package
// (an answer, not an outage), or limit passes; it returns the last error
// and how long it took. Elections take 4–9 s (design §4).
func retry(limit time.Duration, fn func(ctx context.Context) error) (time.Duration, error) {
	start := time.Now()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := fn(ctx)
		cancel()
		if err == nil || isAnswer(err) || time.Since(start) > limit {
			return time.Since(start), err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func isAnswer(err error) bool {
	for _, s := range []error{lease.ErrHeld, lease.ErrLost, lease.ErrInvalid, lease.ErrBucketConfig, lease.ErrNotFound} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// wantErr fails t unless err wraps want.
func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: got %v, want %v", what, err, want)
	}
}
