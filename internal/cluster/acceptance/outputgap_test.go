package acceptance

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/cluster/assign"
)

// A "tasks started" line says that a worker's tasks run, not that they
// read: the output stream shows what the moved ranges' users saw. For
// each key of the key groups a change restarted, the output gap is the
// longest time between two consecutive stored outputs of the key that
// overlaps the change, from its start to the last "tasks started" line
// it caused (only new outputs are stored: replayed ones are dropped by
// id, so a restart shows as a gap until the replay caught up). It
// includes the wait for the key's next record, which the trickle of
// records during a change (publishPaced) keeps short. Key groups are the
// operator's (keyGroupOf, visibility_test.go).

// restartedGroups are the key-group ranges of the tasks that (re)started
// for a: those the "tasks started" lines name.
func restartedGroups(t testing.TB, a assign.Assignment, starts []taskStart) []assign.Range {
	var out []assign.Range
	for _, o := range a.Operators {
		if o.Name != operatorName {
			continue
		}
		for _, s := range starts {
			if s.released {
				continue
			}
			for _, i := range s.indices(t) {
				if i < len(o.Tasks) && o.Tasks[i].Worker == s.worker.id {
					out = append(out, o.Tasks[i].Range)
				}
			}
		}
	}
	return out
}

// outputTimes are the stream time stamps of each key's stored outputs, in
// stream order.
func outputTimes(msgs []storedMsg) map[string][]time.Time {
	out := map[string][]time.Time{}
	for _, m := range msgs {
		if o, err := decodeOutput(m.data); err == nil {
			out[o.K] = append(out[o.K], m.stamp)
		}
	}
	for _, ts := range out {
		slices.SortFunc(ts, time.Time.Compare)
	}
	return out
}

// outputGaps reports, over the keys in groups that had an output before
// from, the median and the largest output gap overlapping [from, to].
func outputGaps(times map[string][]time.Time, groups []assign.Range, from, to time.Time) (string, error) {
	var gaps []time.Duration
	worst := ""
	for k, ts := range times {
		kg, err := keyGroupOf(k)
		if err != nil {
			return "", err
		}
		if !slices.ContainsFunc(groups, func(r assign.Range) bool { return kg >= r.Start && kg < r.End }) {
			continue
		}
		gap, ok := longestGap(ts, from, to)
		if !ok {
			continue
		}
		if len(gaps) == 0 || gap > slices.Max(gaps) {
			worst = k
		}
		gaps = append(gaps, gap)
	}
	if len(gaps) == 0 {
		return "no key had outputs before", nil
	}
	slices.Sort(gaps)
	return fmt.Sprintf("output gap over %d keys: median %s, max %s (%s)", len(gaps),
		gaps[len(gaps)/2].Round(time.Millisecond), gaps[len(gaps)-1].Round(time.Millisecond), worst), nil
}

// longestGap is the longest time between consecutive ts (sorted) that
// overlaps [from, to]; false when no t precedes from or none follows it.
func longestGap(ts []time.Time, from, to time.Time) (time.Duration, bool) {
	i, _ := slices.BinarySearchFunc(ts, from, time.Time.Compare)
	if i == 0 || i == len(ts) {
		return 0, false
	}
	var longest time.Duration
	for ; i < len(ts) && ts[i-1].Before(to); i++ {
		longest = max(longest, ts[i].Sub(ts[i-1]))
	}
	return longest, true
}
