package acceptance

import (
	"testing"

	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// TestWorkerKillIsRecovered SIGKILLs one of 3 workers, chosen at random
// (the coordinator or not), while records are being published and
// processed. The other two must take over its key groups (it is suspected
// after worker_timeout, 2 s) and restore them from the last cluster
// checkpoint: in the end every output is stored exactly once after
// deduplication (lost 0, duplicates 0), the per-key check passes, the
// control bucket's history keeps the protocol's invariants and the
// survivors exit 0 on SIGTERM.
//
// The kill falls once a quarter of the outputs are stored, while the
// second half of the records is being published, so the killed worker's
// key groups have records that only a survivor can process. In the long
// mode (CLUSTER_LONG=1) it is 5 kills, each killed worker replaced by a
// new one (one restarted under its own id): killPlanFor.
func TestWorkerKillIsRecovered(t *testing.T) {
	runKillTest(t, "", killPlanFor(killPlan{kills: 1, sameID: -1}))
}

// TestWorkerKillsTransactional is TestWorkerKillIsRecovered with a
// transactional sink (design §7 phase 1, acceptance 2): 2 kills (5 in the
// long mode), each killed worker restarted at once under a new id. A
// transactional output must never be stored twice, not even under
// another id or with the same payload, and no output of the model may be
// missing. Besides, the outputs must be visible only as whole atomic
// batches, and only after the cluster checkpoint covering their input
// completed (checkVisibility).
func TestWorkerKillsTransactional(t *testing.T) {
	runKillTest(t, config.ModeTransactional, killPlanFor(killPlan{kills: 2, restart: true, sameID: -1}))
}

func runKillTest(t *testing.T, mode string, plan killPlan) {
	d := deployMode(t, mode)
	r := newRand(t)
	events := newEvents(recordCount(), r)
	d.startWorkers(t, workers)
	t.Logf("plan: %s", plan)
	report := d.killLoop(t, r, events, plan)
	d.stopWorkers(t)
	what := "after " + plan.String()
	t.Logf("ACCEPTANCE-SUMMARY %s: %s", what, summary(report))
	msgs := d.requireModelOutputs(t, what)
	d.requireControl(t, what)
	if mode == config.ModeTransactional {
		d.requireVisibility(t, what, msgs)
	}
}
