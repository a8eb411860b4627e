package acceptance

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/cluster/assign"
	"github.com/wasmstream/wasmstream/internal/cluster/member"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// partition is one proxy per node in front of a worker: cut, the worker
// reaches no node; healed, what it sent meanwhile arrives late.
type partition struct {
	proxies []*testutil.FreezeProxy
}

// newPartition starts a proxy in front of every node of the cluster.
func (d *deployment) newPartition(t *testing.T) *partition {
	t.Helper()
	p := &partition{}
	for i := range d.cluster.N() {
		u, err := url.Parse(d.cluster.URL(i))
		if err != nil {
			t.Fatal(err)
		}
		port, err := strconv.Atoi(u.Port())
		if err != nil {
			t.Fatal(err)
		}
		p.proxies = append(p.proxies, testutil.StartFreezeProxy(t, port))
	}
	return p
}

// urls are the proxies' URLs, for the worker's pipeline file.
func (p *partition) urls() string {
	var out []string
	for _, x := range p.proxies {
		out = append(out, x.URL)
	}
	return strings.Join(out, ",")
}

func (p *partition) cut() {
	for _, x := range p.proxies {
		x.Freeze()
	}
}

func (p *partition) heal() {
	for _, x := range p.proxies {
		x.Heal()
	}
}

// runsTasks reports whether the assignment gives worker id a task.
func runsTasks(a assign.Assignment, id string) bool {
	for _, op := range a.Operators {
		if slices.ContainsFunc(op.Tasks, func(task assign.Task) bool { return task.Worker == id }) {
			return true
		}
	}
	return false
}

// TestWorkerPartition cuts one worker off every node, through a proxy per
// node, for lease_ttl + 3 s while records are being published, then heals
// the cut (design §7 phase 1, acceptance 6). Meanwhile its tasks must move
// to the others: an assignment without it is stored. Healed, the proxies
// deliver what the worker sent while cut off (TCP retransmits, late), and
// the worker goes on with its old connections, timers and state, as a
// zombie. None of its writes may be accepted after the heal: no output or
// dead letter it produced (header Wasmstream-Worker) is stored at or after
// the heal, and no renewal of the membership lease it held before the cut
// is stored after the lease expired (a new lease, when it joins again, is
// a new member). The outputs: lost 0, duplicates 0, the per-key check
// passes (order inversions allowed and reported, as for a frozen zombie);
// the control bucket's invariants hold.
//
// The worker cut off is not the coordinator: TestCoordinatorFreeze covers
// a coordinator that stops answering.
func TestWorkerPartition(t *testing.T) {
	d := deploy(t)
	r := newRand(t)
	events := newEvents(recordCount(), r)
	chunks := splitEvents(events, 2)
	d.startNewWorker(t)
	d.awaitCoordinator(t)
	d.startNewWorker(t)
	p := d.newPartition(t)
	zombie := d.startWorkerAt(t, fmt.Sprintf("w%d", d.nextID), p.urls())
	d.nextID++
	d.awaitAssignment(t, 0, "gives "+zombie.id+" a task", func(a assign.Assignment) bool { return runsTasks(a, zombie.id) })
	d.publish(t, chunks[0])
	d.waitOutputs(t, len(chunks[0])/2)
	token := d.memberToken(t, zombie.id)

	bg := d.publishInBackground(chunks[1])
	bg.waitSent(t, len(chunks[1])/4)
	cutFor := leaseTTLDuration(t) + 3*time.Second
	before := d.newestAssignment(t)
	p.cut()
	cut := time.Now()
	t.Logf("cut %s off every node for %s", zombie.incarnation(), cutFor)
	moved := d.awaitAssignment(t, before.Epoch, "gives "+zombie.id+" no task", func(a assign.Assignment) bool { return !runsTasks(a, zombie.id) })
	movedAt := moved.stored
	if movedAt.After(cut.Add(cutFor)) {
		t.Fatalf("the tasks of %s moved %s after the cut, after the partition ended (%s)", zombie.id, movedAt.Sub(cut), cutFor)
	}
	time.Sleep(time.Until(cut.Add(cutFor)))
	p.heal()
	healed := time.Now()
	zombie.thawed = true // from now on it may exit by itself (a lost membership lease)
	t.Logf("healed after %s; assignment epoch %d without %s stored %s after the cut", healed.Sub(cut).Round(time.Millisecond),
		moved.Epoch, zombie.id, movedAt.Sub(cut).Round(time.Millisecond))
	bg.wait(t)
	d.waitOutputs(t, len(events))
	d.stopWorkers(t)

	what := "after a worker partition"
	msgs := d.requireOutputs(t, what, true)
	restarted := time.Now()
	if l := zombie.findSince(logTasksStarted, healed); len(l) > 0 {
		restarted = l[0].at
	}
	earlier, late, afterRestart := producedBy(msgs, zombie.id, healed, restarted)
	stored := d.ctl.complete(t)
	renewals := tokenWritesAfter(stored, member.Key(zombie.id), token, cut.Add(leaseTTLDuration(t)))
	d.requireControl(t, what)
	t.Logf("ACCEPTANCE-SUMMARY %s: %s cut off for %s; its tasks moved %s after the cut (assignment epoch %d); "+
		"outputs it stored: %d before the heal, %d after the heal before it started tasks again, %d after that; renewals of its old membership lease stored after its expiry: %d; "+
		"after the heal: %s",
		what, zombie.id, cutFor, movedAt.Sub(cut).Round(time.Millisecond), moved.Epoch, earlier, len(late), afterRestart, renewals, zombieAfterHeal(zombie, healed))
	if len(late) > 0 {
		t.Errorf("%d outputs of the cut-off worker %s were stored after the heal, e.g. stream sequence %d at %s after it",
			len(late), zombie.id, late[0].seq, late[0].stamp.Sub(healed).Round(time.Millisecond))
	}
	if renewals > 0 {
		t.Errorf("%d renewals of %s's membership lease from before the cut were stored after it expired", renewals, zombie.id)
	}
}

// memberToken is the token of the membership lease worker id holds now.
func (d *deployment) memberToken(t *testing.T, id string) string {
	t.Helper()
	m, err := d.ctl.bucket.Get(ctxFor(t, 10*time.Second), member.Key(id))
	if err != nil {
		t.Fatalf("read the membership lease of %s: %v", id, err)
	}
	return leaseToken(m.Data)
}

// producedBy sorts the stored messages worker id produced by when they
// were stored: the count before healed, those from healed until the
// worker started tasks again (restarted: its late writes as a zombie),
// and the count after (those of its new tasks).
func producedBy(msgs []storedMsg, id string, healed, restarted time.Time) (before int, late []storedMsg, after int) {
	for _, m := range msgs {
		switch {
		case m.worker != id:
		case m.stamp.Before(healed):
			before++
		case m.stamp.Before(restarted):
			late = append(late, m)
		default:
			after++
		}
	}
	return before, late, after
}

// tokenWritesAfter counts the stored puts of key carrying lease token
// token after since.
func tokenWritesAfter(msgs []ctlMsg, key, token string, since time.Time) int {
	n := 0
	for _, m := range msgs {
		if m.key == key && m.op == "" && m.stamp.After(since) && leaseToken(m.data) == token {
			n++
		}
	}
	return n
}

// zombieAfterHeal says what the healed worker logged or did.
func zombieAfterHeal(w *worker, since time.Time) string {
	var seen []string
	if l := w.findSince(logMembershipLost, since); len(l) > 0 {
		seen = append(seen, fmt.Sprintf("logged %q %s after the heal", logMembershipLost, l[0].at.Sub(since.Truncate(time.Millisecond)).Round(time.Millisecond)))
	}
	if l := w.findSince(logTasksStarted, since); len(l) > 0 {
		seen = append(seen, fmt.Sprintf("started tasks again %s after the heal", l[0].at.Sub(since.Truncate(time.Millisecond)).Round(time.Millisecond)))
	}
	if w.exited() {
		seen = append(seen, fmt.Sprintf("exited (%s); its last line: %q", w.exitStatus(), w.lastLine()))
	}
	if len(seen) == 0 {
		return "nothing logged about its lease or tasks"
	}
	return strings.Join(seen, "; ")
}

// TestWorkerStopsWhileWaitingForItsLease: a worker whose id's membership
// lease is still held (an earlier process's, which it waits out: the
// rejoin of a cut-off worker after the heal does the same) exits 0 on
// SIGTERM. It exited 1 with "context canceled" when the partition test
// stopped a worker that was joining again.
func TestWorkerStopsWhileWaitingForItsLease(t *testing.T) {
	d := deploy(t)
	const id = "w9"
	if _, err := d.ctl.bucket.Acquire(ctxFor(t, 30*time.Second), member.Key(id), id, time.Hour); err != nil {
		t.Fatalf("hold the membership lease of %s: %v", id, err)
	}
	w := d.startWorker(t, id)
	deadline := time.Now().Add(stopLimit)
	for len(w.find(logWaitingForLease)) == 0 {
		if w.exited() {
			t.Fatal(w.exitFailure())
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not log %q within %s; its last line: %q", w.incarnation(), logWaitingForLease, stopLimit, w.lastLine())
		}
		time.Sleep(pollEvery)
	}
	d.stopWorkers(t)
}
