package crashtest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"
)

// killLoopCase is one kill loop: a pipeline, its input and run flags.
type killLoopCase struct {
	name    string
	spec    pipelineSpec
	publish func(t *testing.T, w *world)
	args    []string // flags of every run, reference included
	records int
	kills   int

	// Optional hooks of the sink loops. beforeRuns runs once the loop's
	// world has its input, before its first run; afterKill after each kill,
	// before the next run; outputs accounts the outputs at the end in
	// place of checkOutputs on the stored ones.
	beforeRuns func(t *testing.T, w *world)
	afterKill  func(t *testing.T, w *world, c *child)
	outputs    func(t *testing.T, w, ref *world) outputCheck
}

// Kill delays are drawn from [killMin, killMax) after the child's start.
const (
	killMin = 200 * time.Millisecond
	killMax = 1500 * time.Millisecond
)

// TestKillLoop kills a payment-risk pipeline over 100,000 records at
// random moments, then lets it finish: the final state must equal a
// crash-free run's, with every output stored exactly once.
func TestKillLoop(t *testing.T) {
	t.Parallel() // with the unaligned loop: each waits much of the time
	records, accounts, kills := 100_000, 1000, 20
	if testing.Short() {
		records, accounts, kills = 10_000, 100, 5
	}
	runKillLoop(t, killLoopCase{
		name: "kill loop", spec: riskSpec(t), records: records, kills: kills,
		publish: func(t *testing.T, w *world) { w.publish(t, "payments", randomRiskEvents(records, accounts, 1)) },
	})
}

// TestKillLoopUnaligned is the kill loop on a two-input operator with two
// tasks and unaligned checkpoints: snapshots taken before every barrier
// arrived, and their replay skipping what the snapshot already holds. The
// operator does not deduplicate, so a record applied twice shows in the
// state.
func TestKillLoopUnaligned(t *testing.T) {
	t.Parallel()
	perInput, keys, kills := 50_000, 1000, 20
	if testing.Short() {
		perInput, keys, kills = 5_000, 100, 5
	}
	// Two tasks: their unaligned snapshots can be at different positions
	// of an input, which the replay after a restore must skip per key group.
	spec := sumSpec(t, "a", "b")
	spec.parallelism = 2
	runKillLoop(t, killLoopCase{
		name: "unaligned kill loop", spec: spec, records: 2 * perInput, kills: kills,
		args: []string{"--checkpoint-mode", "unaligned"},
		publish: func(t *testing.T, w *world) {
			w.publish(t, "a", sumRecords("a", 1, perInput, keys))
			w.publish(t, "b", sumRecords("b", 1, perInput, keys))
		},
	})
}

// killStats describes a kill loop, for the log and the summary line.
type killStats struct {
	kills           int
	afterCheckpoint int // kills of runs that had completed a checkpoint
	midInput        int // kills before every output was stored
	checkpoints     int // checkpoints completed by all runs
	progress        []uint64
}

func runKillLoop(t *testing.T, kc killLoopCase) {
	seed := killSeed(t)
	ref := newWorld(t, kc.name+" reference", kc.spec)
	kc.publish(t, ref)
	w := newWorld(t, kc.name, kc.spec)
	kc.publish(t, w)
	// The reference runs meanwhile: it shares nothing with the loop.
	refRun := ref.startToIdle(t, kc.args...)
	if kc.beforeRuns != nil {
		kc.beforeRuns(t, w)
	}
	runArgs := append([]string{"--checkpoint-interval", "200ms"}, kc.args...)
	st := killRuns(t, w, kc, rand.New(rand.NewPCG(seed, 0)), runArgs)
	newest := w.newestOrZero(t)
	final := w.runToCompletion(t, runArgs...)
	requireRestoredNewest(t, final, newest)
	for _, c := range w.runs[kc.kills:] {
		st.checkpoints += c.checkpointsCompleted()
	}
	ref.complete(t, refRun)
	checkKillLoop(t, kc, seed, st, w, ref)
}

// killRuns starts and kills the pipeline kc.kills times. Every third kill
// waits for the run's first checkpoint, so some kills certainly hit a run
// that has checkpointed.
func killRuns(t *testing.T, w *world, kc killLoopCase, rng *rand.Rand, args []string) killStats {
	t.Helper()
	var st killStats
	for i := range kc.kills {
		newest := w.newestOrZero(t)
		c := w.start(t, nil, args...)
		killAt := c.started.Add(killMin + time.Duration(rng.Int64N(int64(killMax-killMin))))
		if i%3 == 2 {
			c.waitLog(t, "checkpoint completed")
			killAt = later(killAt, time.Now().Add(time.Duration(rng.Int64N(int64(300*time.Millisecond)))))
		}
		time.Sleep(time.Until(killAt))
		c.kill(t)
		requireRestoredNewest(t, c, newest)
		st.record(t, w, c, uint64(kc.records))
		if kc.afterKill != nil {
			kc.afterKill(t, w, c)
		}
	}
	return st
}

// checkKillLoop logs the loop, prints its summary line and fails unless the
// final state is the reference's and every output is stored exactly once.
func checkKillLoop(t *testing.T, kc killLoopCase, seed uint64, st killStats, w, ref *world) {
	t.Helper()
	got, want := w.finalState(t), ref.finalState(t)
	stateResult := "equal"
	if len(diffStates(got, want, 1)) > 0 {
		stateResult = "DIFFERENT"
	}
	var oc outputCheck
	if kc.outputs != nil {
		oc = kc.outputs(t, w, ref)
	} else {
		oc = checkOutputs(w.outputs(t), w.expectedOutputs(t), payloads(ref.outputs(t)))
	}
	t.Logf("%s: seed %d, %d kills (%d after a checkpoint of their run, %d before every output was stored), %d checkpoints completed, outputs stored after each kill %v",
		kc.name, seed, st.kills, st.afterCheckpoint, st.midInput, st.checkpoints, st.progress)
	t.Logf("%s: %d outputs stored, %d lost, %d duplicates, %d unexpected, %d differ from the reference; final state %s",
		kc.name, oc.stored, oc.lost, oc.duplicates, oc.unexpected, oc.differing, stateResult)
	fmt.Printf("CRASHTEST-SUMMARY %s: records=%d kills=%d kills_after_checkpoint=%d kills_mid_input=%d checkpoints=%d lost=%d duplicates=%d final_state=%s seed=%d%s\n",
		kc.name, kc.records, st.kills, st.afterCheckpoint, st.midInput, st.checkpoints, oc.lost, oc.duplicates, stateResult, seed, oc.detail)
	requireSameState(t, kc.name, got, want)
	oc.require(t, kc.name)
	if st.afterCheckpoint == 0 {
		t.Fatalf("%s: no kill happened after a checkpoint of its run", kc.name)
	}
}

// record counts a kill of c.
func (st *killStats) record(t *testing.T, w *world, c *child, expected uint64) {
	t.Helper()
	st.kills++
	n := c.checkpointsCompleted()
	st.checkpoints += n
	if n > 0 {
		st.afterCheckpoint++
	}
	stored := w.srv.storedCount(t, outputStream)
	if stored < expected {
		st.midInput++
	}
	st.progress = append(st.progress, stored)
}

// requireRestoredNewest fails unless run c restored checkpoint newest (0:
// started empty). A run killed before it got that far logged neither and
// is not checked.
func requireRestoredNewest(t *testing.T, c *child, newest uint64) {
	t.Helper()
	if len(c.find("checkpoint restored")) == 0 && len(c.find("no checkpoint yet: starting from empty state")) == 0 {
		return
	}
	if id, err := c.restoredCheckpoint(); err != nil || id != newest {
		t.Fatalf("%s restored checkpoint %d (%v); the newest completed checkpoint was %d\n%s", c.name, id, err, newest, c.logTail(30))
	}
}

// killSeed is CRASHTEST_SEED when set (to replay a failure), else a new
// seed; either way it is logged.
func killSeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("CRASHTEST_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("CRASHTEST_SEED=%q: %v", s, err)
		}
		seed = v
	}
	t.Logf("kill delay seed %d (CRASHTEST_SEED=%d draws the same delays again)", seed, seed)
	return seed
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
