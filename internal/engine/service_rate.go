package engine

import "time"

// rateSample is a count at a time.
type rateSample struct {
	at    time.Time
	count uint64
}

// rateRing keeps the last few samples of a growing count, so that a rate
// "now" covers a short window rather than the whole run (a status asked
// after an hour of idling must not show the first hour's average).
type rateRing struct {
	samples []rateSample // oldest first, at most size
	size    int
}

func newRateRing(size int) *rateRing { return &rateRing{size: size} }

// add records count at at, dropping the oldest sample when full.
func (r *rateRing) add(at time.Time, count uint64) {
	if len(r.samples) == r.size {
		r.samples = append(r.samples[:0], r.samples[1:]...)
	}
	r.samples = append(r.samples, rateSample{at, count})
}

// rate is the count's growth per second between the oldest and the newest
// sample, and the window it covers; 0 with fewer than two samples.
func (r *rateRing) rate() (perSecond float64, window time.Duration) {
	if len(r.samples) < 2 {
		return 0, 0
	}
	first, last := r.samples[0], r.samples[len(r.samples)-1]
	window = last.at.Sub(first.at)
	if window <= 0 || last.count < first.count {
		return 0, window
	}
	return float64(last.count-first.count) / window.Seconds(), window
}
