package acceptance

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	clusterworker "github.com/wasmstream/wasmstream/internal/cluster/worker"
)

// Bounds of the waits for the coordinator; reaching one fails the test.
const (
	coordinatorLimit = 30 * time.Second // until a coordinator is known
	completionLimit  = time.Minute      // until a cluster checkpoint completes
	stepDownLimit    = 30 * time.Second // until a thawed coordinator shows it stepped down
)

// leaseTTLDuration is the pipeline's cluster.lease_ttl.
func leaseTTLDuration(t *testing.T) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(leaseTTL)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// awaitCoordinator returns the live worker that holds the coordinator
// lease (the control bucket's coordinator key, read through its leader)
// and the lease's generation, from the worker's last "coordinator
// elected" line.
func (d *deployment) awaitCoordinator(t *testing.T) (*worker, uint64) {
	t.Helper()
	deadline := time.Now().Add(coordinatorLimit)
	for {
		d.requireRunning(t)
		holder, err := d.ctl.holder(ctxFor(t, 10*time.Second))
		if err != nil {
			t.Logf("reading the coordinator key: %v", err)
		}
		for _, w := range d.live() {
			if w.id != holder {
				continue
			}
			if lines := w.find(logElected); len(lines) > 0 {
				gen, err := lines[len(lines)-1].uint("generation")
				if err != nil {
					t.Fatal(err)
				}
				return w, gen
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no live worker holds the coordinator lease after %s (holder %q; live: %s)", coordinatorLimit, holder, d.running())
		}
		time.Sleep(pollEvery)
	}
}

// awaitCompletions waits until n cluster checkpoints completed since
// since, according to the workers' logs.
func (d *deployment) awaitCompletions(t *testing.T, since time.Time, n int) {
	t.Helper()
	deadline := time.Now().Add(completionLimit)
	for {
		got := 0
		for _, w := range d.workers {
			got += len(w.findSince(logCompleted, since))
		}
		if got >= n {
			return
		}
		d.requireRunning(t)
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d cluster checkpoints completed within %s", got, n, completionLimit)
		}
		time.Sleep(pollEvery)
	}
}

// awaitElection waits up to limit for a worker other than old to log
// "coordinator elected" at or after since, and returns it and the line.
func (d *deployment) awaitElection(t *testing.T, old *worker, since time.Time, limit time.Duration) (*worker, logLine) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		for _, w := range d.workers {
			if w == old || w.down {
				continue
			}
			if lines := w.findSince(logElected, since); len(lines) > 0 {
				return w, lines[0]
			}
		}
		d.requireRunning(t)
		if time.Now().After(deadline) {
			t.Fatalf("no worker but %s logged %q within %s (running: %s)", old.incarnation(), logElected, limit, d.running())
		}
		time.Sleep(pollEvery / 2)
	}
}

// TestCoordinatorKill SIGKILLs the worker that holds the coordinator
// lease while records are being published (design §7 phase 1,
// acceptance 3). Another worker must log "coordinator elected", with a
// higher generation, within lease_ttl + 5 s of the kill (the lease
// expires one TTL after its last renewal; the others race for it on the
// expiry marker). No checkpoint id may be completed twice: the control
// bucket's history holds each checkpoint.<N> at most once, each the
// completion of the claim pending then (checkControl), and no two
// "cluster checkpoint completed" lines of the workers name one id. The
// outputs: lost 0, duplicates 0, the per-key check passes.
//
// Long mode: 3 coordinator kills, each killed worker replaced by a new
// one.
func TestCoordinatorKill(t *testing.T) {
	d := deploy(t)
	r := newRand(t)
	rounds := 1
	if longMode() {
		rounds = 3
	}
	events := newEvents(recordCount(), r)
	chunks := splitEvents(events, rounds+1)
	d.startWorkers(t, workers)
	d.publish(t, chunks[0])
	published := len(chunks[0])
	d.waitOutputs(t, published/2)
	limit := leaseTTLDuration(t) + 5*time.Second
	var report []string
	for i := range rounds {
		since := time.Now()
		coord, gen := d.awaitCoordinator(t)
		d.awaitCompletions(t, since, 1) // the coordinator was at work: a checkpoint of its own could be repeated
		bg := d.publishInBackground(chunks[i+1])
		bg.waitSent(t, len(chunks[i+1])/4)
		coord.kill(t)
		killed := time.Now()
		if rounds > 1 {
			d.startNewWorker(t)
		}
		next, line := d.awaitElection(t, coord, killed, 2*limit)
		took := line.at.Sub(killed.Truncate(time.Millisecond))
		newGen, err := line.uint("generation")
		if err != nil {
			t.Fatal(err)
		}
		line0 := fmt.Sprintf("kill %d: coordinator %s (generation %d) SIGKILLed; %s elected (generation %d) %s later (limit lease_ttl + 5 s = %s)",
			i+1, coord.incarnation(), gen, next.incarnation(), newGen, took.Round(time.Millisecond), limit)
		t.Log(line0)
		report = append(report, line0)
		if took > limit {
			t.Errorf("%s: more than lease_ttl + 5 s", line0)
		}
		if newGen <= gen {
			t.Errorf("%s: the new generation is not higher", line0)
		}
		bg.wait(t)
		published += len(chunks[i+1])
		d.waitOutputs(t, published)
	}
	d.stopWorkers(t)
	what := fmt.Sprintf("after %d coordinator kill(s)", rounds)
	t.Logf("ACCEPTANCE-SUMMARY %s: %s", what, summary(report))
	d.requireModelOutputs(t, what)
	d.requireControl(t, what)
}

// TestCoordinatorFreeze SIGSTOPs the coordinator's worker for lease_ttl +
// 3 s, while records are being published, then SIGCONTs it (design §7
// phase 1, acceptance 3; the zombie of §5.6). Meanwhile another worker
// must have become coordinator. After SIGCONT the frozen one must give the
// role up: it logs "stepped down as coordinator", or it loses its
// membership lease (it logs "membership lease lost" and joins again, or
// it exits: worker.Run). Its late writes must be refused: in the control
// bucket's history no record of its generation is stored after the first
// record of the new generation, and no renewal of its old lease is
// stored after the new coordinator's election. Its write attempts after
// SIGCONT are counted from the bucket's subjects and reported. The
// outputs: lost 0, duplicates 0, the per-key check passes; order
// inversions are allowed (a zombie's queued publishes, design §5.3) and
// reported.
func TestCoordinatorFreeze(t *testing.T) {
	d := deploy(t)
	r := newRand(t)
	events := newEvents(recordCount(), r)
	chunks := splitEvents(events, 2)
	d.startWorkers(t, workers)
	d.publish(t, chunks[0])
	d.waitOutputs(t, len(chunks[0])/2)
	since := time.Now()
	zombie, oldGen := d.awaitCoordinator(t)
	d.awaitCompletions(t, since, 1)
	freezeFor := leaseTTLDuration(t) + 3*time.Second

	bg := d.publishInBackground(chunks[1])
	bg.waitSent(t, len(chunks[1])/4)
	zombie.freeze(t)
	frozen := time.Now()
	t.Logf("SIGSTOP coordinator %s (generation %d) for %s", zombie.incarnation(), oldGen, freezeFor)
	next, line := d.awaitElection(t, zombie, frozen, freezeFor)
	newGen, err := line.uint("generation")
	if err != nil {
		t.Fatal(err)
	}
	elected := line.at.Sub(frozen.Truncate(time.Millisecond))
	time.Sleep(time.Until(frozen.Add(freezeFor)))
	zombie.thaw(t)
	thawed := time.Now()
	t.Logf("SIGCONT %s after %s; %s was elected (generation %d) %s after the SIGSTOP",
		zombie.id, thawed.Sub(frozen).Round(time.Millisecond), next.incarnation(), newGen, elected.Round(time.Millisecond))
	bg.wait(t)
	how := d.awaitStepDown(t, zombie, thawed)
	t.Logf("after SIGCONT, %s: %s", zombie.id, how)
	d.waitOutputs(t, len(events))
	d.stopWorkers(t)

	what := "after freezing the coordinator"
	msgs := d.requireOutputs(t, what, true)
	d.explainWrongOutputs(t, msgs, zombie, thawed)
	d.requireControl(t, what)
	stored := d.ctl.complete(t)
	accepted := afterFirstOf(stored, oldGen, newGen)
	renewals := renewalsAfter(stored, zombie.id, oldGen, newGen)
	tried := zombieAttempts(d.ctl.attempts(), zombie.id, oldGen, thawed)
	t.Logf("ACCEPTANCE-SUMMARY %s: %s (generation %d) frozen %s, %s elected (generation %d) %s after the SIGSTOP; "+
		"after SIGCONT %s; zombie writes stored: %d records of generation %d after generation %d's first, %d renewals of its lease; "+
		"its write attempts after SIGCONT: %s",
		what, zombie.id, oldGen, freezeFor, next.id, newGen, elected.Round(time.Millisecond), how, accepted, oldGen, newGen, renewals, tried)
	if newGen <= oldGen {
		t.Errorf("the new coordinator's generation %d is not above the frozen one's %d", newGen, oldGen)
	}
	if accepted > 0 || renewals > 0 {
		t.Errorf("the server accepted writes of the frozen coordinator %s after %s took over: %d records of generation %d, %d lease renewals",
			zombie.id, next.id, accepted, oldGen, renewals)
	}
}

// explainWrongOutputs logs, for outputs whose payload is not the
// model's, when they were stored relative to the zombie's SIGCONT, and
// the dead letters the zombie logged after it: a zombie that processes
// records after its lease expired stores its outputs first, and
// deduplication then drops the new owner's.
func (d *deployment) explainWrongOutputs(t *testing.T, msgs []storedMsg, zombie *worker, thawed time.Time) {
	t.Helper()
	var first, last time.Duration
	n := 0
	for _, m := range msgs {
		want, ok := d.model.byID[m.msgID]
		if got, err := decodeOutput(m.data); !ok || err != nil || got == want {
			continue
		}
		at := m.stamp.Sub(thawed)
		if n == 0 || at < first {
			first = at
		}
		last = max(last, at)
		n++
	}
	if n == 0 {
		return
	}
	dead := zombie.findSince(logDeadLetter, thawed)
	t.Errorf("%d stored outputs differ from the model, stored from %s to %s after the SIGCONT of %s; it logged %d dead letters after the SIGCONT:\n%s",
		n, first.Round(time.Millisecond), last.Round(time.Millisecond), zombie.id, len(dead), indent(rawLines(dead, 5)))
}

func rawLines(lines []logLine, n int) []string {
	var out []string
	for _, l := range lines[:min(n, len(lines))] {
		out = append(out, l.raw)
	}
	return out
}

// awaitStepDown waits until the thawed worker w shows that it no longer
// coordinates: it logs "stepped down as coordinator", or that it lost its
// membership lease, or it exits. It describes everything it saw, and
// fails when none came within stepDownLimit.
func (d *deployment) awaitStepDown(t *testing.T, w *worker, since time.Time) string {
	t.Helper()
	deadline := time.Now().Add(stepDownLimit)
	for {
		var seen []string
		if l := w.findSince(logSteppedDown, since); len(l) > 0 {
			reason, _ := l[0].field("reason")
			seen = append(seen, fmt.Sprintf("logged %q %s after SIGCONT (reason: %s)", logSteppedDown, l[0].at.Sub(since.Truncate(time.Millisecond)).Round(time.Millisecond), reason))
		}
		if l := w.findSince(logMembershipLost, since); len(l) > 0 {
			seen = append(seen, fmt.Sprintf("logged %q %s after SIGCONT", logMembershipLost, l[0].at.Sub(since.Truncate(time.Millisecond)).Round(time.Millisecond)))
		}
		if w.exited() {
			seen = append(seen, fmt.Sprintf("exited (%s) %s after SIGCONT; its last line: %q", w.exitStatus(), w.ended.Sub(since).Round(time.Millisecond), w.lastLine()))
		}
		if len(seen) > 0 {
			if len(w.findSince(logElected, since)) > 0 {
				seen = append(seen, "later elected again")
			}
			return strings.Join(seen, "; ")
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s neither stepped down as coordinator nor lost its membership within %s of SIGCONT; its last line: %q",
				w.incarnation(), stepDownLimit, w.lastLine())
		}
		time.Sleep(pollEvery)
	}
}

// leaseToken reads the token of a lease value (lease/value.go).
func leaseToken(data []byte) string {
	var v struct {
		Token string `json:"token"`
	}
	_ = json.Unmarshal(data, &v)
	return v.Token
}

// renewalsAfter counts the stored writes of the coordinator lease of
// generation gen (held by holder: its token is the one of the create at
// revision gen) after the create of generation newer.
func renewalsAfter(msgs []ctlMsg, holder string, gen, newer uint64) int {
	var token string
	n := 0
	for _, m := range msgs {
		if m.key != clusterworker.CoordinatorKey || m.op != "" {
			continue
		}
		switch {
		case m.seq == gen && leaseHolder(m.data) == holder:
			token = leaseToken(m.data)
		case m.seq > newer && token != "" && leaseToken(m.data) == token:
			n++
		}
	}
	return n
}

// zombieAttempts describes the writes the worker holder attempted on the
// control bucket after since: records of generation gen and writes of the
// coordinator key under its name.
func zombieAttempts(raw []ctlMsg, holder string, gen uint64, since time.Time) string {
	records, lease := map[string]int{}, 0
	for _, m := range raw {
		if m.stamp.Before(since) {
			continue
		}
		if g, ok := generationOf(m.key, m.data); ok && g == gen {
			records[m.key]++
		}
		if m.key == clusterworker.CoordinatorKey && leaseHolder(m.data) == holder {
			lease++
		}
	}
	return fmt.Sprintf("%d records of generation %d %v, %d writes of the coordinator key as holder %s", sum(records), gen, records, lease, holder)
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
