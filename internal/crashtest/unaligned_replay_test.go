package crashtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/crashpoint"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// TestCheckpointDuringUnalignedReplayKeepsSkippedRecords: after restoring an
// unaligned checkpoint in which one task is ahead of another on an input,
// the replay skips, on the ahead task's key groups, the records its state
// already holds. A checkpoint taken before that replay has passed the
// skipped records must still say that the ahead task's state holds them;
// recording only the barrier's position makes the restore from it apply
// them a second time.
//
// The ahead checkpoint is made deterministic: input b only has keys of task
// 1, and the test writes task 0's position on b as 0 into the manifest of a
// run's final checkpoint. That is the cut the engine itself writes when
// task 0 snapshots at a's barrier before b's (task 0 holds no record of b,
// so "b up to 0" is as true of its state as "b up to the end"). The run
// after it checkpoints every 10ms, fetches one record at a time so the
// replay is slow, and dies right after its first checkpoint.
//
// That checkpoint coming before the replay has passed b's records is up to
// timing (locally it comes 1,000 to 2,500 records in, of 20,000): a run
// whose checkpoint came after is not a result, so its checkpoint is removed
// and the replay runs again from the edited one. Only when every attempt
// missed does the test give up, and under CI that fails it.
func TestCheckpointDuringUnalignedReplayKeepsSkippedRecords(t *testing.T) {
	const nA, nB = 50, 20000
	args := []string{"--checkpoint-mode", "unaligned"}
	spec := sumSpec(t, "a", "b")
	spec.parallelism = 2
	ref, w := newWorld(t, "reference", spec), newWorld(t, "replay", spec)
	for _, x := range []*world{ref, w} {
		x.publish(t, "a", sumRecords("a", 1, nA, 20))
		x.publish(t, "b", recordsOfTask(t, "b", nB, 1, spec.parallelism))
	}
	ref.runToCompletion(t, args...)
	w.runToCompletion(t, args...)
	first := w.newest(t)
	setTaskInput(t, w, first, 0, "b", 0)

	m := checkpointDuringReplay(t, w, "b", nB, args)
	t.Logf("checkpoint %d taken during the replay: sources %+v, tasks %+v", m.ID, m.Sources, m.Operators[0].Tasks)

	w.runToCompletion(t, args...)
	requireSameState(t, "after a restore from a checkpoint taken during the replay", w.finalState(t), ref.finalState(t))
}

// replayAttempts bounds the replaying runs of
// TestCheckpointDuringUnalignedReplayKeepsSkippedRecords.
const replayAttempts = 5

// checkpointDuringReplay starts replaying runs that die right after their
// first checkpoint until one is taken before the replay of source has
// passed position end, and returns its manifest. A checkpoint that came
// after is removed, so the next run restores the edited one again.
func checkpointDuringReplay(t *testing.T, w *world, source string, end uint64, args []string) checkpoint.Manifest {
	t.Helper()
	for attempt := 1; ; attempt++ {
		c := w.start(t, []string{crashpoint.Env + "=after-retain:1"},
			append([]string{"--checkpoint-interval", "10ms", "--fetch-batch", "1"}, args...)...)
		c.wait(t)
		if !c.killedBySIGKILL() {
			t.Fatalf("the replaying run did not die at its first checkpoint: %v\n%s", c.waitErr, c.logTail(40))
		}
		m := w.manifest(t, w.newest(t))
		pos := sourcePosition(m, source)
		if pos < end {
			return m
		}
		msg := fmt.Sprintf("attempt %d: checkpoint %d came after the replay of %s (position %d of %d)", attempt, m.ID, source, pos, end)
		if attempt == replayAttempts {
			testutil.SkipUnlessCI(t, msg+": no attempt checkpointed during the replay, nothing was checked")
		}
		t.Log(msg + "; removing it and replaying again")
		if err := os.RemoveAll(checkpoint.Dir(w.root(), m.ID)); err != nil {
			t.Fatal(err)
		}
	}
}

// recordsOfTask returns n sum2 records of source whose keys all belong to
// task of parallelism tasks (default max_parallelism, 128).
func recordsOfTask(t *testing.T, source string, n, task, parallelism int) []input {
	t.Helper()
	var keys []string
	for i := 0; len(keys) < 10; i++ {
		k := fmt.Sprintf("key-%d", i)
		if state.TaskForKeyGroup(state.KeyGroup([]byte(k), 128), parallelism, 128) == task {
			keys = append(keys, k)
		}
	}
	out := make([]input, n)
	for i := range out {
		b, err := json.Marshal(map[string]any{"k": keys[i%len(keys)], "v": i + 1})
		if err != nil {
			t.Fatal(err)
		}
		out[i] = input{msgID: fmt.Sprintf("%s-%d", source, i+1), data: b}
	}
	return out
}

// setTaskInput rewrites checkpoint id's manifest with task's position on
// source set to pos. The state files are untouched, so the checkpoint
// still verifies.
func setTaskInput(t *testing.T, w *world, id uint64, task int, source string, pos uint64) {
	t.Helper()
	m := w.manifest(t, id)
	m.Operators[0].Tasks[task].Inputs[source] = pos
	data, err := checkpoint.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(checkpoint.Dir(w.root(), id), "MANIFEST.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkpoint.Verify(w.root(), id); err != nil {
		t.Fatalf("checkpoint %d after the manifest edit: %v", id, err)
	}
}

func sourcePosition(m checkpoint.Manifest, source string) uint64 {
	for _, s := range m.Sources {
		if s.Name == source {
			return s.LastSequence
		}
	}
	return 0
}
