package acceptance

import (
	"testing"
	"time"
)

// TestWorkerKillIsRecovered SIGKILLs one of 3 workers, chosen at random
// (the coordinator or not), while records are being processed. The other
// two must take over its key groups (it is suspected after worker_timeout,
// 2 s) and restore them from the last cluster checkpoint: in the end every
// output is stored exactly once after deduplication (lost 0, duplicates
// 0), the per-key check passes and the survivors exit 0 on SIGTERM.
//
// Half the records are published before the kill and half after it, so
// the killed worker's key groups have records that only a survivor can
// process, and the kill falls once a quarter of the outputs are stored,
// while the first half is still being processed.
func TestWorkerKillIsRecovered(t *testing.T) {
	d := deploy(t)
	r := newRand(t)
	events := newEvents(recordCount(), r)
	half := len(events) / 2
	d.startWorkers(t, workers)
	d.publish(t, events[:half])
	d.waitOutputs(t, len(events)/4)

	victim := d.workers[r.IntN(len(d.workers))]
	t.Logf("SIGKILL worker %s at %s", victim.id, d.rec.progress())
	victim.kill(t)
	killed := time.Now()
	d.publish(t, events[half:])
	d.waitOutputs(t, len(events))
	t.Logf("every output stored %s after the kill of %s (worker_timeout %s, lease_ttl %s)",
		time.Since(killed).Round(time.Millisecond), victim.id, workerTimeout, leaseTTL)
	d.stopWorkers(t)
	d.requireModelOutputs(t, "after the SIGKILL of "+victim.id)
}
