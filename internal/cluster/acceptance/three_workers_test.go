package acceptance

import "testing"

// TestThreeWorkersEqualOneProcess is phase 1's acceptance 1 (design §7):
// 3 nodes, 3 workers, 100,000 records (20,000 with -short) over 200 keys.
// The workers together must store exactly the outputs one process would
// (the model), each once, with the per-key sequence check passing, and
// each worker must exit 0 within 30 s of SIGTERM.
func TestThreeWorkersEqualOneProcess(t *testing.T) {
	d := deploy(t)
	events := newEvents(recordCount(), newRand(t))
	d.startWorkers(t, workers)
	d.publish(t, events)
	d.waitOutputs(t, len(events))
	d.stopWorkers(t)
	d.requireModelOutputs(t, "3 workers")
	d.requireControl(t, "3 workers")
}
