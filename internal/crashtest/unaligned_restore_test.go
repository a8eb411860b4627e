package crashtest

import (
	"testing"
)

// TestUnalignedCheckpointAfterRestoreKeepsPositions: a run that restored a
// checkpoint and then takes an unaligned checkpoint before it processed a
// record of some input must still record, for that input, the position the
// restored state holds. Recording 0 there makes the next restore replay the
// input from its first record into state that already holds it.
//
// The unaligned kill loop meets this when a run has finished its input and
// keeps checkpointing until it is killed; this is the smallest
// deterministic form: no kill, only an idle run between two others.
func TestUnalignedCheckpointAfterRestoreKeepsPositions(t *testing.T) {
	const n = 300
	args := []string{"--checkpoint-mode", "unaligned"}
	ref := newWorld(t, "reference", sumSpec(t, "a", "b"))
	w := newWorld(t, "idle restarts", sumSpec(t, "a", "b"))
	for _, x := range []*world{ref, w} {
		x.publish(t, "a", sumRecords("a", 1, n, 10))
		x.publish(t, "b", sumRecords("b", 1, n, 10))
	}
	ref.runToCompletion(t, args...)
	w.runToCompletion(t, args...)

	// The second run has nothing to read: its final checkpoint holds the
	// restored state unchanged, so every task is at n on both inputs.
	w.runToCompletion(t, args...)
	m := w.manifest(t, w.newest(t))
	for _, op := range m.Operators {
		for i, task := range op.Tasks {
			for _, s := range m.Sources {
				if got := task.Inputs[s.Name]; got != s.LastSequence {
					t.Errorf("checkpoint %d, operator %s task %d: input %s at %d, but the source is at %d and the state holds every record up to it",
						m.ID, op.Name, i, s.Name, got, s.LastSequence)
				}
			}
		}
	}

	// The third run restores that checkpoint: it must not apply any
	// record a second time.
	w.runToCompletion(t, args...)
	requireSameState(t, "after two idle restarts", w.finalState(t), ref.finalState(t))
}
