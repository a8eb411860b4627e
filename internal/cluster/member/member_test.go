package member_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/cluster/lease"
	"github.com/wasmstream/wasmstream/internal/cluster/member"
	"github.com/wasmstream/wasmstream/internal/clustertest"
)

// waitFor bounds a wait for the watcher to see something; it is a failure
// bound, not a performance claim.
const waitFor = 30 * time.Second

// TestMembershipOnACluster: two workers join and are alive; a second
// process with a taken id is refused; a worker that goes silent (its
// connection dies, no release) is first suspected, then gone once its
// lease expires; a worker that leaves releases at once.
func TestMembershipOnACluster(t *testing.T) {
	c := clustertest.Start(t, 3)
	c.WaitReady(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := lease.EnsureBucket(ctx, c.JetStream(t), "ctl-p", 3)
	if err != nil {
		t.Fatal(err)
	}
	w, err := member.Watch(ctx, b, c.Conn(t), "p", 1500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	leave1 := run(t, join(t, b, c, "w1"))
	// w2 does everything on one connection of its own, as a worker does.
	doomedConn := c.Conn(t)
	js2, err := jetstream.New(doomedConn)
	if err != nil {
		t.Fatal(err)
	}
	b2, err := lease.EnsureBucket(ctx, js2, "ctl-p", 3)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := member.Join(ctx, b2, doomedConn, "p", "w2", 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	run(t, m2)
	waitView(t, w, []string{"w1", "w2"}, nil)

	if _, err := member.Join(ctx, b, c.Conn(t), "p", "w1", 3*time.Second); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("a second w1: err = %v, want refused as in use", err)
	}
	if _, err := member.Join(ctx, b, c.Conn(t), "p", "bad.id", 3*time.Second); !errors.Is(err, member.ErrInvalidID) {
		t.Fatalf("id with a dot: err = %v, want ErrInvalidID", err)
	}

	doomedConn.Close() // w2 stops renewing and beating, and cannot release
	waitView(t, w, []string{"w1"}, []string{"w2"})
	waitView(t, w, []string{"w1"}, nil) // its lease expired
	leave1()
	waitView(t, w, nil, nil)
}

func join(t *testing.T, b *lease.Bucket, c *clustertest.Cluster, id string) *member.Member {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	m, err := member.Join(ctx, b, c.Conn(t), "p", id, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// run runs m until the returned function (or the test's end) stops it.
func run(t *testing.T, m *member.Member) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil && !errors.Is(err, lease.ErrLost) {
			t.Errorf("%s: Run: %v", m.Lease().Holder(), err)
		}
	}
	t.Cleanup(stop)
	return stop
}

func waitView(t *testing.T, w *member.Watcher, alive, suspected []string) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		v := w.View()
		if slices.Equal(v.Alive, alive) && slices.Equal(v.Suspected, suspected) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("view %+v, want alive %v suspected %v", v, alive, suspected)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
