package engine

import (
	"fmt"
	"reflect"
	"testing"
)

// A final checkpoint taken at one parallelism restores at another: the
// key groups move to other tasks, and the state at the end equals that of
// a run that never stopped, entry for entry, as do the totals the sink saw.
func TestRescaleRestoresAtOtherParallelism(t *testing.T) {
	first, second := sumRecords(300, 40, 5), sumRecords(300, 40, 6)
	want := expectedSums(first, second)
	reference := referenceState(t, append(append([]sumRecord(nil), first...), second...))
	for _, c := range []struct{ from, to int }{{4, 2}, {2, 8}} {
		t.Run(fmt.Sprintf("%d to %d", c.from, c.to), func(t *testing.T) {
			s := newSumSetup(t, c.from)
			runSums(t, s.load(t), Options{}, first)
			s.parallelism = c.to
			cfg := s.load(t)
			stats := runSums(t, cfg, Options{}, second)
			if stats.Processed != uint64(len(second)) || stats.Replayed != 0 {
				t.Errorf("second run stats %+v: want the %d new records processed, none replayed", stats, len(second))
			}
			m := newestCheckpoint(t, cfg)
			if m.Metrics.Recovery == nil || m.Metrics.Recovery.FromCheckpoint != 1 {
				t.Errorf("checkpoint %d recovery %+v: want a restore of checkpoint 1", m.ID, m.Metrics.Recovery)
			}
			checkTaskRanges(t, m, c.to)
			got := dumpState(t, cfg, m.ID)
			if !reflect.DeepEqual(got, reference) {
				t.Errorf("state after the rescale differs from the run that never stopped:\n%v\nwant\n%v", got, reference)
			}
			diffSums(t, "state", sumsOf(t, got), want)
			diffSums(t, "last outputs", lastOutputSums(t, cfg), want)
		})
	}
}

// referenceState runs recs once, with parallelism 1 and no restore, and
// returns the state of its final checkpoint.
func referenceState(t *testing.T, recs []sumRecord) []StateEntry {
	t.Helper()
	cfg := newSumSetup(t, 1).load(t)
	runSums(t, cfg, Options{}, recs)
	return dumpState(t, cfg, newestCheckpoint(t, cfg).ID)
}
