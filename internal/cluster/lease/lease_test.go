package lease_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/cluster/lease"
	"github.com/wasmstream/wasmstream/internal/clustertest"
)

// TestLease runs the cases that need no fault on one 3-node cluster, each
// in its own bucket: a cluster start costs more than all of them.
func TestLease(t *testing.T) {
	c := clustertest.Start(t, 3)
	c.WaitReady(t)
	js := c.JetStream(t)
	for _, tc := range []struct {
		name string
		run  func(*testing.T, jetstream.JetStream, *lease.Bucket)
	}{
		{"EnsureBucket", testEnsureBucket},
		{"SecondAcquireIsHeld", testSecondAcquireIsHeld},
		{"ExpiryTakeoverFencesZombie", testExpiryTakeoverFencesZombie},
		{"RenewOutlivesTTL", testRenewOutlivesTTL},
		{"StaleRenewAfterTakeoverIsLost", testStaleRenewAfterTakeoverIsLost},
		{"RenewAdoptsOwnLostReply", testRenewAdoptsOwnLostReply},
		{"LeaderGetReadsOwnWrites", testLeaderGetReadsOwnWrites},
		{"InvalidArguments", testInvalidArguments},
		{"FenceOnlyInBucketStream", testFenceOnlyInBucketStream},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.run(t, js, ensureBucket(t, js, "lease-"+strings.ToLower(tc.name)))
		})
	}
}

func testEnsureBucket(t *testing.T, js jetstream.JetStream, b *lease.Bucket) {
	again, err := lease.EnsureBucket(ctx5(t), js, b.Name(), 3)
	if err != nil {
		t.Fatalf("second EnsureBucket: %v", err)
	}
	st, err := again.KV().Status(ctx5(t))
	if err != nil {
		t.Fatal(err)
	}
	if st.History() != 1 || st.LimitMarkerTTL() != lease.MarkerTTL {
		t.Fatalf("bucket history %d, marker TTL %s; want 1 and %s", st.History(), st.LimitMarkerTTL(), lease.MarkerTTL)
	}
	if _, err := js.CreateKeyValue(ctx5(t), jetstream.KeyValueConfig{Bucket: "lease-history5", History: 5, Replicas: 3}); err != nil {
		t.Fatal(err)
	}
	_, err = lease.EnsureBucket(ctx5(t), js, "lease-history5", 3)
	wantErr(t, "EnsureBucket of a History 5 bucket", err, lease.ErrBucketConfig)
	if !strings.Contains(err.Error(), "history 5") || !strings.Contains(err.Error(), "lease-history5") {
		t.Fatalf("error does not name the bucket and the setting: %v", err)
	}
}

func testSecondAcquireIsHeld(t *testing.T, _ jetstream.JetStream, b *lease.Bucket) {
	a := acquire(t, b, "coordinator", "worker-a", 10*time.Second)
	_, err := b.Acquire(ctx5(t), "coordinator", "worker-b", 10*time.Second)
	wantErr(t, "second Acquire", err, lease.ErrHeld)
	if !strings.Contains(err.Error(), `"worker-a"`) {
		t.Fatalf("ErrHeld does not name the holder worker-a: %v", err)
	}
	if a.Generation() == 0 || a.Revision() != a.Generation() {
		t.Fatalf("generation %d, revision %d; want equal and > 0 before any renewal", a.Generation(), a.Revision())
	}
}

// The lease expires without renewal, another holder takes over with a
// higher generation, and the old holder's writes are refused.
func testExpiryTakeoverFencesZombie(t *testing.T, _ jetstream.JetStream, b *lease.Bucket) {
	a := acquire(t, b, "coordinator", "worker-a", 2*time.Second)
	if _, err := a.FencedPut(ctx5(t), "assignment", []byte("a-1")); err != nil {
		t.Fatalf("holder's fenced write: %v", err)
	}
	start := time.Now()
	var bl *lease.Lease
	for bl == nil && time.Since(start) < 10*time.Second {
		l, err := b.Acquire(ctx5(t), "coordinator", "worker-b", 2*time.Second)
		if err == nil {
			bl = l
			break
		}
		wantErr(t, "Acquire before expiry", err, lease.ErrHeld)
		time.Sleep(100 * time.Millisecond)
	}
	if bl == nil {
		t.Fatal("no takeover within 10 s of a 2 s TTL")
	}
	t.Logf("takeover %s after the holder stopped renewing a 2s lease", time.Since(start).Round(time.Millisecond))
	if bl.Generation() <= a.Generation() {
		t.Fatalf("new generation %d not above the old %d", bl.Generation(), a.Generation())
	}
	if !time.Now().After(a.ValidUntil()) {
		t.Fatalf("the old holder's ValidUntil %s has not passed at takeover", a.ValidUntil())
	}

	before := revisionOf(t, b, "assignment")
	_, err := a.FencedPut(ctx5(t), "assignment", []byte("zombie"))
	wantErr(t, "zombie's fenced write", err, lease.ErrLost)
	if got := revisionOf(t, b, "assignment"); got != before {
		t.Fatalf("zombie's refused write changed assignment from revision %d to %d", before, got)
	}
	if _, err := bl.FencedPut(ctx5(t), "assignment", []byte("b-1")); err != nil {
		t.Fatalf("new holder's fenced write: %v", err)
	}
	wantValue(t, b, "assignment", "b-1")
	wantErr(t, "zombie's renew", a.Renew(ctx5(t)), lease.ErrLost)
}

func testRenewOutlivesTTL(t *testing.T, _ jetstream.JetStream, b *lease.Bucket) {
	a := acquire(t, b, "coordinator", "worker-a", 2*time.Second)
	first := a.ValidUntil()
	for end := time.Now().Add(4 * time.Second); time.Now().Before(end); time.Sleep(400 * time.Millisecond) {
		if err := a.Renew(ctx5(t)); err != nil {
			t.Fatalf("renew: %v", err)
		}
		_, err := b.Acquire(ctx5(t), "coordinator", "worker-b", 2*time.Second)
		wantErr(t, "Acquire of a renewed lease", err, lease.ErrHeld)
	}
	if !a.ValidUntil().After(first.Add(3 * time.Second)) {
		t.Fatalf("ValidUntil moved from %s to %s in 4 s of renewals", first, a.ValidUntil())
	}
	if a.Revision() <= a.Generation() {
		t.Fatalf("revision %d after renewals, generation %d", a.Revision(), a.Generation())
	}
	if _, err := a.FencedPut(ctx5(t), "assignment", []byte("a-2")); err != nil {
		t.Fatalf("fenced write with the renewed revision: %v", err)
	}
}

// A zombie's renew with its old revision, after a release and takeover,
// is ErrLost and leaves the new holder's lease alone.
func testStaleRenewAfterTakeoverIsLost(t *testing.T, _ jetstream.JetStream, b *lease.Bucket) {
	a := acquire(t, b, "coordinator", "worker-a", 10*time.Second)
	zombie := lease.StaleCopy(a)
	if err := a.Release(ctx5(t)); err != nil {
		t.Fatal(err)
	}
	bl := acquire(t, b, "coordinator", "worker-b", 10*time.Second)
	err := zombie.Renew(ctx5(t))
	wantErr(t, "stale renew", err, lease.ErrLost)
	if !strings.Contains(err.Error(), `"worker-b"`) {
		t.Fatalf("ErrLost does not name the new holder: %v", err)
	}
	wantErr(t, "stale renew again", zombie.Renew(ctx5(t)), lease.ErrLost)
	_, err = zombie.FencedPut(ctx5(t), "decision", []byte("zombie"))
	wantErr(t, "zombie's fenced write", err, lease.ErrLost)
	if _, err := b.Get(ctx5(t), "decision"); !errors.Is(err, lease.ErrNotFound) {
		t.Fatalf("the zombie's refused write stored something: %v", err)
	}
	if err := bl.Renew(ctx5(t)); err != nil {
		t.Fatalf("new holder's renew after the zombie's: %v", err)
	}
}

// A renewal stored whose reply never came leaves a Lease with an old
// revision; its next refused write finds its own value and adopts it.
func testRenewAdoptsOwnLostReply(t *testing.T, _ jetstream.JetStream, b *lease.Bucket) {
	a := acquire(t, b, "coordinator", "worker-a", 10*time.Second)
	behind := lease.StaleCopy(a)
	if err := a.Renew(ctx5(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := behind.FencedPut(ctx5(t), "decision", []byte("1")); err != nil {
		t.Fatalf("fenced write of a Lease one renewal behind: %v", err)
	}
	if behind.Revision() != a.Revision() {
		t.Fatalf("revision %d adopted, the lease is at %d", behind.Revision(), a.Revision())
	}
}

func testLeaderGetReadsOwnWrites(t *testing.T, js jetstream.JetStream, b *lease.Bucket) {
	for i := range 50 {
		v := fmt.Sprint(i)
		rev, err := b.KV().Put(ctx5(t), "record", []byte(v))
		if err != nil {
			t.Fatal(err)
		}
		m, err := lease.LeaderGet(ctx5(t), js, b.Stream(), b.Subject("record"))
		if err != nil {
			t.Fatal(err)
		}
		if string(m.Data) != v || m.Sequence != rev {
			t.Fatalf("write %d (revision %d): leader read %q at %d", i, rev, m.Data, m.Sequence)
		}
	}
	_, err := lease.LeaderGet(ctx5(t), js, b.Stream(), b.Subject("never-written"))
	wantErr(t, "leader read of an unwritten key", err, lease.ErrNotFound)
}

func testInvalidArguments(t *testing.T, _ jetstream.JetStream, b *lease.Bucket) {
	for _, ttl := range []time.Duration{0, 500 * time.Millisecond, 1500 * time.Millisecond} {
		_, err := b.Acquire(ctx5(t), "coordinator", "w", ttl)
		wantErr(t, fmt.Sprintf("Acquire with TTL %s", ttl), err, lease.ErrInvalid)
	}
	a := acquire(t, b, "coordinator", "worker-a", 10*time.Second)
	for _, subj := range []string{"orders.new", "$KV.other.key", a.Subject(), "$KV." + b.Name() + "."} {
		_, err := a.FencedPublish(ctx5(t), subj, nil)
		wantErr(t, "fenced publish on "+subj, err, lease.ErrInvalid)
	}
}

func revisionOf(t *testing.T, b *lease.Bucket, key string) uint64 {
	t.Helper()
	m, err := b.Get(ctx5(t), key)
	if err != nil {
		t.Fatalf("leader read of %s: %v", key, err)
	}
	return m.Sequence
}

func wantValue(t *testing.T, b *lease.Bucket, key, want string) {
	t.Helper()
	m, err := b.Get(ctx5(t), key)
	if err != nil || string(m.Data) != want {
		t.Fatalf("leader read of %s: %v %q, want %q", key, err, dataOf(m), want)
	}
}

func dataOf(m *jetstream.RawStreamMsg) []byte {
	if m == nil {
		return nil
	}
	return m.Data
}

// The fence works only inside the lease's own stream: the server looks the
// expected subject up in the stream being written. A holder's fenced
// write into another stream is refused; FencedPublish therefore refuses
// such subjects up front (testInvalidArguments).
func testFenceOnlyInBucketStream(t *testing.T, js jetstream.JetStream, b *lease.Bucket) {
	if _, err := js.CreateStream(ctx5(t), jetstream.StreamConfig{Name: "OTHER", Subjects: []string{"other.>"}, Replicas: 3}); err != nil {
		t.Fatal(err)
	}
	a := acquire(t, b, "coordinator", "worker-a", 10*time.Second)
	var serverErr error
	err := a.WithFence(ctx5(t), func(fence nats.Header) error {
		_, serverErr = js.PublishMsg(ctx5(t), &nats.Msg{Subject: "other.x", Header: fence})
		return serverErr
	})
	var apiErr *jetstream.APIError
	if !errors.As(serverErr, &apiErr) || apiErr.ErrorCode != jetstream.JSErrCodeStreamWrongLastSequence {
		t.Fatalf("fenced write into another stream: %v, want 10071 wrong last sequence", serverErr)
	}
	if errors.Is(err, lease.ErrLost) || a.Renew(ctx5(t)) != nil {
		t.Fatalf("a refusal from another stream cost the lease: %v", err)
	}
}
