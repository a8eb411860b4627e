package clustertest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// A started cluster takes R3 writes, names its stream leader, and keeps
// them while a follower is frozen.
func TestStartReadyFreezeThaw(t *testing.T) {
	requireLinux(t)
	c := Start(t, 3)
	if got := strings.Count(c.URLs(), "nats://127.0.0.1:"); got != 3 {
		t.Fatalf("URLs() = %q, want 3 client URLs", c.URLs())
	}
	c.WaitReady(t)
	js := c.JetStream(t)
	createStream(t, js, "FREEZE")
	publishRetrying(t, js, "FREEZE.a", []byte("1"))
	leader := c.StreamLeader(t, "FREEZE")

	follower := (leader + 1) % 3
	c.Freeze(follower)
	// The kernel stops the process asynchronously.
	if !waitFor(2*time.Second, func() bool { return processState(c.PID(follower)) == "T" }) {
		t.Fatalf("frozen node %s is in state %q, want T (stopped)", c.Name(follower), processState(c.PID(follower)))
	}
	// Two of three nodes are a quorum; a client that landed on the frozen
	// node moves within about two pings.
	took := publishRetrying(t, js, "FREEZE.a", []byte("2"))
	t.Logf("publish with follower %s frozen accepted after %s", c.Name(follower), took.Round(time.Millisecond))
	c.Thaw(follower)
	if !waitFor(2*time.Second, func() bool { s := processState(c.PID(follower)); return s == "S" || s == "R" }) {
		t.Fatalf("thawed node %s is in state %q", c.Name(follower), processState(c.PID(follower)))
	}
	c.WaitReady(t)
}

// Killing a stream's leader elects another node; the killed node comes
// back on its own URL and catches up.
func TestKillLeaderThenRestart(t *testing.T) {
	requireLinux(t)
	c := Start(t, 3)
	c.WaitReady(t)
	js := c.JetStream(t)
	createStream(t, js, "KILL")
	publishRetrying(t, js, "KILL.a", []byte("before"))
	old := c.StreamLeader(t, "KILL")

	killed := time.Now()
	c.Kill(old)
	took := publishRetrying(t, js, "KILL.a", []byte("after"))
	t.Logf("stream writable %s after SIGKILL of its leader %s", took.Round(time.Millisecond), c.Name(old))
	if now := c.StreamLeader(t, "KILL"); now == old {
		t.Fatalf("leader is still the killed node %s", c.Name(old))
	}
	t.Logf("new leader known %s after the kill", time.Since(killed).Round(time.Millisecond))

	c.Restart(old)
	nc, err := nats.Connect(c.URL(old)) // the same port as before the kill
	if err != nil {
		t.Fatalf("connect to restarted node %s at %s: %v", c.Name(old), c.URL(old), err)
	}
	nc.Close()
	waitCurrent(t, c, "KILL", old)
}

// waitCurrent waits until node i is a current replica of stream.
func waitCurrent(t *testing.T, c *Cluster, stream string, i int) {
	t.Helper()
	js := c.JetStream(t)
	start := time.Now()
	ok := waitFor(30*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		s, err := js.Stream(ctx, stream)
		if err != nil || s.CachedInfo().Cluster == nil {
			return false
		}
		for _, r := range s.CachedInfo().Cluster.Replicas {
			if r.Name == c.Name(i) && r.Current {
				return true
			}
		}
		return s.CachedInfo().Cluster.Leader == c.Name(i)
	})
	if !ok {
		t.Fatalf("node %s is not a current replica of %s within 30 s", c.Name(i), stream)
	}
	t.Logf("restarted node %s current after %s", c.Name(i), time.Since(start).Round(time.Millisecond))
}

// A restart keeps each node's store: after all three were killed, the
// stream and its messages are back.
func TestRestartAllKeepsStore(t *testing.T) {
	requireLinux(t)
	c := Start(t, 3)
	c.WaitReady(t)
	js := c.JetStream(t)
	createStream(t, js, "KEEP")
	for range 5 {
		publishRetrying(t, js, "KEEP.a", []byte("x"))
	}
	for i := range 3 {
		c.Kill(i)
	}
	for i := range 3 {
		c.Restart(i)
	}
	c.WaitReady(t)
	var msgs uint64
	ok := waitFor(30*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		s, err := js.Stream(ctx, "KEEP")
		if err == nil {
			msgs = s.CachedInfo().State.Msgs
		}
		return msgs == 5
	})
	if !ok {
		t.Fatalf("stream KEEP holds %d messages after restarting every node, want 5", msgs)
	}
}
