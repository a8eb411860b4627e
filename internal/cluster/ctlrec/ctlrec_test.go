package ctlrec_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/cluster/assign"
	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/lease"
	"github.com/wasmstream/wasmstream/internal/clustertest"
)

const sum = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// TestZombieCoordinatorCannotClaimOrComplete: coordinator A claims and
// completes checkpoint 1 and claims 2; its lease expires (a frozen
// process that did not renew); B takes over, reads A's claim and claims
// 3. A's completion of 2 and its next claim are refused and store
// nothing; B completes 3, which Latest reports.
func TestZombieCoordinatorCannotClaimOrComplete(t *testing.T) {
	c := clustertest.Start(t, 3)
	c.WaitReady(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := lease.EnsureBucket(ctx, c.JetStream(t), "ctl-ckpt", 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ctlrec.Latest(ctx, b); !errors.Is(err, lease.ErrNotFound) {
		t.Fatalf("Latest of an empty bucket: %v, want ErrNotFound", err)
	}
	a, err := b.Acquire(ctx, "coordinator", "worker-a", 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	p1 := claim(t, b, a, 1)
	complete(t, a, p1)
	p2 := claim(t, b, a, 1)
	if p1.Checkpoint != 1 || p2.Checkpoint != 2 {
		t.Fatalf("claims %d and %d, want 1 and 2", p1.Checkpoint, p2.Checkpoint)
	}

	bl := takeOver(t, b, "worker-b")
	if bl.Generation() <= a.Generation() {
		t.Fatalf("generation %d after %d: generations must grow", bl.Generation(), a.Generation())
	}
	p3 := claim(t, b, bl, 2)
	if p3.Checkpoint != 3 {
		t.Fatalf("the new coordinator claimed %d, want 3 (after the old one's pending 2)", p3.Checkpoint)
	}
	if err := ctlrec.Complete(ctx, a, p2, completed(p2)); !errors.Is(err, lease.ErrLost) {
		t.Fatalf("the zombie completing 2: err = %v, want ErrLost", err)
	}
	if _, err := ctlrec.ReadCompleted(ctx, b, 2); !errors.Is(err, lease.ErrNotFound) {
		t.Fatalf("checkpoint.2 after the zombie's attempt: %v, want nothing stored", err)
	}
	if _, err := ctlrec.Claim(ctx, b, a, 1, false); !errors.Is(err, lease.ErrLost) {
		t.Fatalf("the zombie claiming: err = %v, want ErrLost", err)
	}
	complete(t, bl, p3)
	got, err := ctlrec.Latest(ctx, b)
	if err != nil || got.Checkpoint != 3 || got.Generation != bl.Generation() {
		t.Fatalf("Latest = %+v, %v; want checkpoint 3 of generation %d", got, err, bl.Generation())
	}
}

// TestLatestFindsACompletionWithoutLatest: a coordinator that died between
// the commit point and the update of checkpoint.latest is not forgotten.
func TestLatestFindsACompletionWithoutLatest(t *testing.T) {
	c := clustertest.Start(t, 3)
	c.WaitReady(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := lease.EnsureBucket(ctx, c.JetStream(t), "ctl-latest", 3)
	if err != nil {
		t.Fatal(err)
	}
	l, err := b.Acquire(ctx, "coordinator", "worker-a", 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	complete(t, l, claim(t, b, l, 1))
	claim(t, b, l, 1) // 2: aborted
	p3 := claim(t, b, l, 1)
	data := []byte(`{"version":1,"checkpoint":3,"generation":` + itoa(l.Generation()) + `,"assignment":1,"manifest":"ckpt/3/MANIFEST.json","sha256":"` + sum + `"}`)
	if _, err := l.FencedPut(ctx, ctlrec.CompletedKey(p3.Checkpoint), data); err != nil { // the commit point, and then a crash
		t.Fatal(err)
	}
	if got, err := ctlrec.Latest(ctx, b); err != nil || got.Checkpoint != 3 {
		t.Fatalf("Latest = %+v, %v; want checkpoint 3 past the aborted 2", got, err)
	}
	// A seeded checkpoint takes at least its savepoint's id; ids never go back.
	if p, err := ctlrec.ClaimAtLeast(ctx, b, l, 1, false, 41); err != nil || p.Checkpoint != 41 {
		t.Fatalf("ClaimAtLeast(41) = %+v, %v; want 41", p, err)
	}
	if p, err := ctlrec.ClaimAtLeast(ctx, b, l, 1, false, 7); err != nil || p.Checkpoint != 42 {
		t.Fatalf("ClaimAtLeast(7) after 41 = %+v, %v; want 42", p, err)
	}
}

func claim(t *testing.T, b *lease.Bucket, l *lease.Lease, assignment uint64) ctlrec.Pending {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := ctlrec.Claim(ctx, b, l, assignment, false)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func completed(p ctlrec.Pending) ctlrec.Completed {
	return ctlrec.Completed{Checkpoint: p.Checkpoint, Generation: p.Generation, Assignment: p.Assignment,
		Manifest: "ckpt/" + itoa(p.Checkpoint) + "/MANIFEST.json", SHA256: sum}
}

func complete(t *testing.T, l *lease.Lease, p ctlrec.Pending) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := ctlrec.Complete(ctx, l, p, completed(p)); err != nil {
		t.Fatal(err)
	}
}

// takeOver acquires the coordinator lease as soon as the old one expired.
func takeOver(t *testing.T, b *lease.Bucket, holder string) *lease.Lease {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		l, err := b.Acquire(ctx, "coordinator", holder, 15*time.Second)
		cancel()
		if err == nil {
			return l
		}
		if !errors.Is(err, lease.ErrHeld) || time.Now().After(deadline) {
			t.Fatalf("take over: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// TestZombieCannotWriteAnAssignment: the assignment a coordinator wrote is
// read back through the leader; after a takeover the old coordinator's
// next assignment is refused and the new one's stands.
func TestZombieCannotWriteAnAssignment(t *testing.T) {
	c := clustertest.Start(t, 3)
	c.WaitReady(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := lease.EnsureBucket(ctx, c.JetStream(t), "ctl-assign", 3)
	if err != nil {
		t.Fatal(err)
	}
	a, err := b.Acquire(ctx, "coordinator", "worker-a", 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ops := []assign.Operator{{Name: "risk", MaxParallelism: 128, Parallelism: 4}}
	first := plan(t, nil, ops, []string{"w1", "w2"}, a)
	if err := ctlrec.WriteAssignment(ctx, a, first); err != nil {
		t.Fatal(err)
	}
	if got, err := ctlrec.ReadAssignment(ctx, b); err != nil || got.Epoch != first.Epoch || got.Generation != a.Generation() {
		t.Fatalf("ReadAssignment = %+v, %v; want epoch %d", got, err, first.Epoch)
	}
	bl := takeOver(t, b, "worker-b")
	zombie := plan(t, &first, ops, []string{"w1"}, a)
	if err := ctlrec.WriteAssignment(ctx, a, zombie); !errors.Is(err, lease.ErrLost) {
		t.Fatalf("the zombie's assignment: err = %v, want ErrLost", err)
	}
	next := plan(t, &first, ops, []string{"w1", "w2", "w3"}, bl)
	if err := ctlrec.WriteAssignment(ctx, bl, next); err != nil {
		t.Fatal(err)
	}
	got, err := ctlrec.ReadAssignment(ctx, b)
	if err != nil || got.Epoch != first.Epoch+1 || got.Generation != bl.Generation() || len(assign.WorkerTasks(got, "w3")) == 0 {
		t.Fatalf("ReadAssignment = %+v, %v; want the new coordinator's epoch %d with w3 in it", got, err, first.Epoch+1)
	}
}

func plan(t *testing.T, prev *assign.Assignment, ops []assign.Operator, workers []string, l *lease.Lease) assign.Assignment {
	t.Helper()
	a, _, err := assign.Plan(prev, ops, workers, assign.Stamp{Generation: l.Generation()})
	if err != nil {
		t.Fatal(err)
	}
	return a
}
