package lease_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/cluster/lease"
	"github.com/wasmstream/wasmstream/internal/clustertest"
)

// electionLimit bounds each retry loop through an election: 4–9 s by
// nats-server's Raft timeouts, 4.1–7.4 s measured (design §4), plus room
// for a loaded machine.
const electionLimit = 30 * time.Second

// SIGKILL of the KV stream's leader: after the election the holder renews
// and writes fenced, another holder is still refused, and a fresh key can
// be acquired. The TTL (15 s, the design's default) outlasts the election.
func TestLeaseThroughLeaderKill(t *testing.T) {
	c := clustertest.Start(t, 3)
	c.WaitReady(t)
	js := c.JetStream(t)
	b := ensureBucket(t, js, "lease-failover")
	a := acquire(t, b, "coordinator", "worker-a", 15*time.Second)
	if _, err := a.FencedPut(ctx5(t), "assignment", []byte("before")); err != nil {
		t.Fatal(err)
	}

	leader := c.StreamLeader(t, b.Stream())
	c.Kill(leader)
	t.Logf("killed %s, leader of %s", c.Name(leader), b.Stream())

	took, err := retry(electionLimit, a.Renew)
	if err != nil {
		t.Fatalf("renew after the leader's SIGKILL, for %s: %v", took, err)
	}
	t.Logf("renewed %s after the kill", took.Round(time.Millisecond))
	if !time.Now().Before(a.ValidUntil()) {
		t.Fatal("ValidUntil passed right after a successful renew")
	}
	if took, err = retry(electionLimit, func(ctx context.Context) error {
		_, err := a.FencedPut(ctx, "assignment", []byte("after"))
		return err
	}); err != nil {
		t.Fatalf("fenced write after the election, for %s: %v", took, err)
	}
	wantValue(t, b, "assignment", "after")

	_, err = retry(electionLimit, func(ctx context.Context) error {
		_, err := b.Acquire(ctx, "coordinator", "worker-b", 15*time.Second)
		return err
	})
	wantErr(t, "another holder's Acquire after the election", err, lease.ErrHeld)
	if _, err = retry(electionLimit, func(ctx context.Context) error {
		_, err := b.Acquire(ctx, "workers.b", "worker-b", 15*time.Second)
		return err
	}); err != nil {
		t.Fatalf("Acquire of a free key after the election: %v", err)
	}
	if err := a.Err(); errors.Is(err, lease.ErrLost) {
		t.Fatalf("lease lost through the election: %v", err)
	}
}
