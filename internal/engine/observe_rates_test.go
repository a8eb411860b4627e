package engine

import (
	"testing"
	"time"
)

// TestRateMeter steps the meter through requests: no rate at the first,
// the rate over the interval once it is at least rateWindow, the last
// rates again for a request sooner than that, and no rate for a counter
// that went back (a reopened pipeline counts from zero).
func TestRateMeter(t *testing.T) {
	start := time.Unix(1_000_000, 0)
	var m rateMeter
	for _, step := range []struct {
		after  time.Duration
		counts map[string]uint64
		want   map[string]float64
	}{
		{0, map[string]uint64{"source:a": 100}, map[string]float64{}},
		{2 * time.Second, map[string]uint64{"source:a": 300}, map[string]float64{"source:a": 100}},
		{2*time.Second + 300*time.Millisecond, map[string]uint64{"source:a": 400}, map[string]float64{"source:a": 100}},
		{4 * time.Second, map[string]uint64{"source:a": 10, "source:b": 5}, map[string]float64{}},
		{8 * time.Second, map[string]uint64{"source:a": 30, "source:b": 5}, map[string]float64{"source:a": 5, "source:b": 0}},
	} {
		got := m.measure(start.Add(step.after), step.counts)
		if len(got) != len(step.want) {
			t.Errorf("at +%s: rates %v, want %v", step.after, got, step.want)
			continue
		}
		for k, want := range step.want {
			if got[k] != want {
				t.Errorf("at +%s: rate of %s %v, want %v", step.after, k, got[k], want)
			}
		}
	}
}
