package crashtest

import (
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// TestTransactionalRestartAfterDuplicateWindow: a transactional pipeline
// stops cleanly, stays stopped longer than its output stream's duplicate
// window, and starts again with no new input. Its outputs were all
// published before the stop; the restart must publish none of them again.
//
// A checkpoint still holds the outputs it staged after they were published
// (they are deleted from the live store only), and past the duplicate
// window the stream no longer recognises their ids: a restore that
// published them again stored every output of the last checkpoint twice
// (found by this test). The data dir's mark of published checkpoints
// (internal/engine/outbox_marker.go) makes the restore drop them instead.
func TestTransactionalRestartAfterDuplicateWindow(t *testing.T) {
	const window = time.Second
	spec := sumSpec(t, "a")
	spec.sink = sinkSpec{mode: config.ModeTransactional, duplicateWindow: window.String()}
	w := newWorld(t, "restart after the duplicate window", spec)
	rec := w.startRecorder(t, outputStream, "out.>")
	w.publish(t, "a", sumRecords("a", 1, 100, 7))
	w.runToCompletion(t)
	checkOutputs(asStored(rec.requireComplete(t, w.srv, outputStream)), w.expectedOutputs(t), nil).require(t, "outputs of the first run")

	// The server forgets the ids once the window has passed (its purge
	// runs about once per window). Waiting too little only lets the test
	// pass without proving anything; it cannot make it fail.
	time.Sleep(3 * window)
	w.runToCompletion(t)
	recorded := rec.requireComplete(t, w.srv, outputStream)
	checkOutputs(asStored(recorded), w.expectedOutputs(t), nil).require(t, "outputs after a restart past the duplicate window")
}
