package acceptance

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/cluster/assign"
	clusterworker "github.com/wasmstream/wasmstream/internal/cluster/worker"
	"github.com/wasmstream/wasmstream/internal/engine/crashpoint"
)

// nodeFreeze is how long TestNATSFaultsDuringRescale keeps a node
// SIGSTOPped (design §7 phase 2, acceptance 5).
const nodeFreeze = 20 * time.Second

// The streams behind the pipeline's control bucket and state Object Store.
var (
	controlStream = "KV_" + clusterworker.BucketName(pipelineName)
	stateStream   = "OBJ_" + clusterworker.ObjectStoreName(pipelineName)
)

// TestNATSFaultsDuringRescale hits the NATS cluster while the pipeline
// rescales (design §7 phase 2, acceptance 5): 2 workers run the operator's
// 4 tasks, then
//
//   - `wasmstream scale --parallelism 8`, and while it is under way the node
//     leading the control bucket's stream is SIGKILLed;
//   - a 3rd worker joins, and once the assignment that gives it tasks is
//     stored the node leading the state Object Store's stream is SIGKILLed
//     while the moved tasks restore from it;
//   - `wasmstream scale --parallelism 2`, and the node leading the source
//     stream is SIGKILLed as it starts;
//   - a node is SIGSTOPped for 20 s, then SIGCONTed.
//
// Each killed node is restarted once the workers started their new tasks.
// Records are published before each fault (the test's publisher is not
// under test, so it publishes while every node is up) and are being
// processed during it. In the end: lost 0, duplicates 0, the per-key check
// (order inversions allowed and reported: an idempotent sink resends what
// an outage failed after newer outputs) and the control bucket's checks
// pass, every worker exits 0 on SIGTERM.
//
// It ran only with CLUSTER_LONG=1 while it stalled in about 1 of 6 runs.
// Three causes were found with it, each now a test of its own: outputs
// whose answers were lost when the stream's leader died were never sent
// again (natsio TestSinkResendsAPublishThatLostItsAnswer), and a task
// waiting for a sink slot held by such outputs waited for ever, blocking
// its source and its part's checkpoints (natsio
// TestSinkPublishWaitingForASlotResendsLostAnswers); a part whose round
// was stuck refused every newer trigger without a word, so the
// coordinator waited out each round's minute while a scale waited behind
// it (the protocol script coordinator/superseded,
// TestDriverNewerDemandSupersedes, TestGivenUp). Once ungated, it failed
// in CI on the second step: the workers given moved tasks read the
// cluster checkpoint's manifest from the Object Store whose leader had
// just been killed, and that read waited for good
// (global TestReadManifestGivesUpOnAFrozenServer); and every reconnect
// to a frozen node held a client's connection for as long as its first
// connect was allowed (natsio
// TestRequestEndsWhileReconnectingToAFrozenServer).
func TestNATSFaultsDuringRescale(t *testing.T) {
	d := deploy(t)
	r := newRand(t)
	events := newEvents(recordCount(), r)
	chunks := splitEvents(events, 5)
	d.startWorkers(t, 2)
	first := d.awaitAssignment(t, 0, "runs 4 tasks on 2 workers", func(a assign.Assignment) bool {
		return parallelismOf(a) == parallelism && len(workersOf(a)) == 2
	})
	d.awaitRestarts(t, 0, first)
	var report []string
	step := func(name string, chunk []event, fault func(prev seenAssignment) string) {
		d.publish(t, chunk)
		prev := d.newestAssignment(t)
		start := time.Now()
		said := fault(prev)
		line := fmt.Sprintf("%s: %s; done %s after it began", name, said, time.Since(start).Round(time.Millisecond))
		t.Log(line)
		report = append(report, line)
	}
	step("scale to 8, control bucket leader killed", chunks[0], func(prev seenAssignment) string {
		wait := d.scaleInBackground(t, 8)
		node := d.killLeader(t, controlStream)
		said := wait(t)
		a := d.awaitAssignment(t, prev.Epoch, "runs 8 tasks", func(a assign.Assignment) bool { return parallelismOf(a) == 8 })
		d.awaitRestarts(t, prev.Epoch, a)
		d.restartNode(t, node)
		return fmt.Sprintf("killed n%d (leader of %s); assignment %d %s; scale said %q", node, controlStream, a.Epoch, placementOf(a.Assignment), said)
	})
	step("a 3rd worker joins, state store leader killed", chunks[1], func(prev seenAssignment) string {
		joined := d.startNewWorker(t).id
		a := d.awaitAssignment(t, prev.Epoch, "gives "+joined+" tasks", func(a assign.Assignment) bool { return slices.Contains(workersOf(a), joined) })
		node := d.killLeader(t, stateStream)
		d.awaitRestarts(t, prev.Epoch, a)
		d.restartNode(t, node)
		return fmt.Sprintf("%s joined; assignment %d %s; killed n%d (leader of %s) as the moved tasks restored", joined, a.Epoch, placementOf(a.Assignment), node, stateStream)
	})
	step("scale to 2, source stream leader killed", chunks[2], func(prev seenAssignment) string {
		wait := d.scaleInBackground(t, 2)
		node := d.killLeader(t, inputStream)
		said := wait(t)
		a := d.awaitAssignment(t, prev.Epoch, "runs 2 tasks", func(a assign.Assignment) bool { return parallelismOf(a) == 2 })
		d.awaitRestarts(t, prev.Epoch, a)
		d.restartNode(t, node)
		return fmt.Sprintf("killed n%d (leader of %s); assignment %d %s; scale said %q", node, inputStream, a.Epoch, placementOf(a.Assignment), said)
	})
	step("a node frozen for 20 s", chunks[3], func(seenAssignment) string {
		node := d.cluster.StreamLeader(t, outputStream)
		d.cluster.Freeze(node)
		time.Sleep(nodeFreeze)
		d.cluster.Thaw(node)
		d.cluster.WaitReady(t)
		return fmt.Sprintf("SIGSTOP n%d (leader of %s) for %s, then SIGCONT", node, outputStream, nodeFreeze)
	})
	d.publish(t, chunks[4])
	d.waitOutputs(t, len(events))
	d.stopWorkers(t)

	what := "NATS faults during a rescale"
	t.Logf("ACCEPTANCE-SUMMARY %s: %s; %s; the recorders replaced stalled consumers %d (outputs) and %d (control) times",
		what, summary(report), d.restartSummary(t), d.rec.cons.replaced(), d.ctl.cons.replaced())
	// Order inversions are allowed and reported: an idempotent sink resends
	// what an outage failed after newer outputs (natsio/sink_resend.go).
	d.requireOutputs(t, what, true)
	d.requireControl(t, what)
}

// killLeader SIGKILLs the node that leads stream and returns its index.
func (d *deployment) killLeader(t *testing.T, stream string) int {
	t.Helper()
	node := d.cluster.StreamLeader(t, stream)
	d.cluster.Kill(node)
	t.Logf("SIGKILL n%d, the leader of %s", node, stream)
	return node
}

// restartNode starts a killed node again and waits until every stream
// has a leader.
func (d *deployment) restartNode(t *testing.T, node int) {
	t.Helper()
	d.cluster.Restart(node)
	d.cluster.WaitReady(t)
}

// scaleInBackground starts `wasmstream scale` to parallelism p and
// returns a wait for it, which fails the test when the command failed and
// returns what it printed.
func (d *deployment) scaleInBackground(t *testing.T, p int) func(*testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliLimit)
	args := []string{"scale", filepath.Join(d.dir, "w0.hcl"), "--operator", operatorName, "--parallelism", fmt.Sprint(p)}
	cmd := exec.CommandContext(ctx, d.cli, args...)
	cmd.Env = environWithout(crashpoint.Env)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("wasmstream %s: %v", strings.Join(args, " "), err)
	}
	time.Sleep(200 * time.Millisecond) // the request is written before the fault
	return func(t *testing.T) string {
		t.Helper()
		defer cancel()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("wasmstream %s: %v\n%s%s", strings.Join(args, " "), err, stdout.Bytes(), stderr.Bytes())
		}
		return strings.TrimSpace(stdout.String())
	}
}
