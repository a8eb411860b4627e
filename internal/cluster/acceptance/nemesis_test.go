package acceptance

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/cluster/assign"
)

// nemesisFaults is how many faults TestNemesis injects (design §7: the
// long mode runs ≥ 20 mixed faults).
const nemesisFaults = 24

// nemesisNodeFreeze is how long a frozen node stays SIGSTOPped there:
// longer than an election (4–10 s), shorter than a checkpoint timeout.
const nemesisNodeFreeze = 12 * time.Second

// A fault is one step of the nemesis: it does something to the
// deployment while records are published and says what it did.
type fault struct {
	name string
	do   func(t *testing.T, d *deployment, r *rand.Rand) string
}

// nemesis is the menu TestNemesis draws from: every fault of the other
// acceptance tests, on workers and on nodes, and live changes.
var nemesis = []fault{
	{"kill a worker", killAWorker},
	{"kill the coordinator", killTheCoordinator},
	{"freeze a worker past its lease", freezeAWorker},
	{"kill the leader of a stream", killAStreamLeader},
	{"freeze a node", freezeANode},
	{"rescale", rescaleTo},
	{"a worker leaves, another joins", leaveAndJoin},
}

// TestNemesis injects nemesisFaults faults drawn at random from the menu
// above into 3 workers on the 3-node cluster, one per chunk of records,
// each while its chunk is being published, and after each waits until
// every record published so far has its output (at most waitOutputs'
// limit). A killed or self-fenced worker is replaced, so 3 workers keep
// running. In the end: lost 0, duplicates 0, the per-key check (order
// inversions allowed and reported, as in TestNATSFaultsDuringRescale), the
// control bucket's checks, and every worker exits 0 on SIGTERM.
// ACCEPTANCE_SEED repeats a run's choices. CLUSTER_LONG=1 only: it runs
// for 10–20 minutes on a 2-core machine.
func TestNemesis(t *testing.T) {
	if !longMode() {
		t.Skipf("set %s=1: %d faults take 10–20 minutes (scripts/nemesis.sh)", longEnv, nemesisFaults)
	}
	d := deploy(t)
	r := newRand(t)
	events := newEvents(recordCount(), r)
	chunks := splitEvents(events, nemesisFaults+1)
	d.startWorkers(t, workers)
	d.publish(t, chunks[0])
	published := len(chunks[0])
	d.waitOutputs(t, published)
	var report []string
	for i := range nemesisFaults {
		f := nemesis[r.IntN(len(nemesis))]
		bg := d.publishInBackground(chunks[i+1])
		bg.waitSent(t, len(chunks[i+1])/4)
		start := time.Now()
		said := f.do(t, d, r)
		bg.wait(t)
		published += len(chunks[i+1])
		d.keepWorkers(t, workers)
		d.waitOutputs(t, published)
		line := fmt.Sprintf("fault %d, %s: %s; all %d outputs so far stored %s after it began",
			i+1, f.name, said, published, time.Since(start).Round(time.Millisecond))
		t.Log(line)
		report = append(report, line)
	}
	d.stopWorkers(t)
	what := fmt.Sprintf("nemesis of %d faults", nemesisFaults)
	t.Logf("ACCEPTANCE-SUMMARY %s: %s; %s", what, summary(report), d.restartSummary(t))
	d.requireOutputs(t, what, true)
	d.requireControl(t, what)
}

// keepWorkers starts new workers until n are running: a replacement
// machine for each one killed or ended.
func (d *deployment) keepWorkers(t *testing.T, n int) {
	t.Helper()
	for len(d.live()) < n {
		d.startNewWorker(t)
	}
}

// someWorker is a random running worker that is not the coordinator, or
// any running worker when the coordinator is the only one.
func (d *deployment) someWorker(t *testing.T, r *rand.Rand) *worker {
	t.Helper()
	live := d.live()
	if len(live) == 0 {
		t.Fatal("no live worker")
	}
	holder, _ := d.ctl.holder(ctxFor(t, 10*time.Second))
	var others []*worker
	for _, w := range live {
		if w.id != holder {
			others = append(others, w)
		}
	}
	if len(others) == 0 {
		return live[r.IntN(len(live))]
	}
	return others[r.IntN(len(others))]
}

func killAWorker(t *testing.T, d *deployment, r *rand.Rand) string {
	w := d.someWorker(t, r)
	role := d.roleOf(t, w)
	w.kill(t)
	next := d.startNewWorker(t)
	return fmt.Sprintf("SIGKILL %s (%s), %s started", w.incarnation(), role, next.incarnation())
}

func killTheCoordinator(t *testing.T, d *deployment, _ *rand.Rand) string {
	w, gen := d.awaitCoordinator(t)
	since := time.Now()
	w.kill(t)
	next, _ := d.awaitElection(t, w, since, leaseTTLDuration(t)+coordinatorLimit)
	started := d.startNewWorker(t)
	return fmt.Sprintf("SIGKILL coordinator %s (generation %d); %s elected %s later; %s started",
		w.incarnation(), gen, next.id, time.Since(since).Round(time.Millisecond), started.incarnation())
}

// freezeAWorker SIGSTOPs a worker (the coordinator or not) past its
// lease: its tasks move, and after SIGCONT it must fence itself.
func freezeAWorker(t *testing.T, d *deployment, r *rand.Rand) string {
	live := d.live()
	w := live[r.IntN(len(live))]
	role := d.roleOf(t, w)
	freezeFor := leaseTTLDuration(t) + 3*time.Second
	w.freeze(t)
	time.Sleep(freezeFor)
	w.thaw(t)
	return fmt.Sprintf("SIGSTOP %s (%s) for %s, then SIGCONT", w.incarnation(), role, freezeFor)
}

// killAStreamLeader SIGKILLs the node leading one of the pipeline's
// streams, and restarts it once the workers have caught up.
func killAStreamLeader(t *testing.T, d *deployment, r *rand.Rand) string {
	streams := []string{controlStream, stateStream, inputStream, outputStream}
	stream := streams[r.IntN(len(streams))]
	node := d.killLeader(t, stream)
	time.Sleep(5 * time.Second) // an election, and the workers ride it out
	d.restartNode(t, node)
	return fmt.Sprintf("SIGKILL n%d (leader of %s), restarted 5 s later", node, stream)
}

func freezeANode(t *testing.T, d *deployment, r *rand.Rand) string {
	node := r.IntN(d.cluster.N())
	d.cluster.Freeze(node)
	time.Sleep(nemesisNodeFreeze)
	d.cluster.Thaw(node)
	d.cluster.WaitReady(t)
	return fmt.Sprintf("SIGSTOP n%d for %s, then SIGCONT", node, nemesisNodeFreeze)
}

// rescaleTo changes the operator's parallelism to one of 2, 4 and 8 other
// than the current one, live, and waits until the new tasks run.
func rescaleTo(t *testing.T, d *deployment, r *rand.Rand) string {
	prev := d.newestAssignment(t)
	cur := parallelismOf(prev.Assignment)
	var choices []int
	for _, p := range []int{2, 4, 8} {
		if p != cur {
			choices = append(choices, p)
		}
	}
	p := choices[r.IntN(len(choices))]
	said := d.scaleInBackground(t, p)(t)
	a := d.awaitAssignment(t, prev.Epoch, fmt.Sprintf("runs %d tasks", p), func(a assign.Assignment) bool { return parallelismOf(a) == p })
	d.awaitRestarts(t, prev.Epoch, a)
	return fmt.Sprintf("parallelism %d → %d, assignment %d %s; scale said %q", cur, p, a.Epoch, placementOf(a.Assignment), said)
}

// leaveAndJoin SIGTERMs a worker (a graceful leave: it hands its tasks
// over) and starts a new one.
func leaveAndJoin(t *testing.T, d *deployment, r *rand.Rand) string {
	w := d.someWorker(t, r)
	if !w.terminate(t) {
		return fmt.Sprintf("%s had already ended", w.incarnation())
	}
	if msg := w.awaitExit0(time.Now().Add(time.Minute), time.Minute); msg != "" {
		t.Fatalf("leaving worker %s: %s", w.incarnation(), msg)
	}
	next := d.startNewWorker(t)
	return fmt.Sprintf("SIGTERM %s (left, exit 0), %s started", w.incarnation(), next.incarnation())
}

// publishRetryLimit bounds the retries of one record's publish through a
// fault: an election takes 4–10 s, a frozen node 12 s plus a reconnect.
const publishRetryLimit = 2 * time.Minute

// storeEventsThroughFaults is storeEvents' way through a fault: it
// publishes one record at a time and retries a failed publish with the
// same Nats-Msg-Id until it is acknowledged. One at a time keeps every
// key's records in publish order (the model and the per-key check need
// it); the same id makes a record the stream stored already (an earlier
// attempt whose answer was lost) a duplicate, whose acknowledgement names
// the sequence of the stored one.
func storeEventsThroughFaults(js jetstream.JetStream, m *model, events []event) error {
	for _, e := range events {
		ack, err := publishUntilAcked(js, e)
		if err != nil {
			return err
		}
		if err := checkAck(e, ack, m, true); err != nil {
			return err
		}
		m.add(e, ack.Sequence)
	}
	return nil
}

func publishUntilAcked(js jetstream.JetStream, e event) (*jetstream.PubAck, error) {
	deadline := time.Now().Add(publishRetryLimit)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		ack, err := js.PublishMsg(ctx, &nats.Msg{Subject: inputSubject, Data: e.payload()}, jetstream.WithMsgID(e.msgID))
		cancel()
		if err == nil {
			return ack, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("publish %s: still failing after %s: %w", e.msgID, publishRetryLimit, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
