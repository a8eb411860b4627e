package engine

import (
	"sync"
	"time"
)

// rateWindow is the shortest interval the UI's rates are measured over:
// requests closer together (two open pages, a reload) get the last rates
// again rather than a few records divided by a few milliseconds.
const rateWindow = time.Second

// rateMeter turns counters read at each /api/pipeline request into rates
// per second. It belongs to the Observer, so it spans the reopenings of a
// pipeline; a counter that went back (a new Open counts from zero) has no
// rate until the next measurement.
type rateMeter struct {
	mu     sync.Mutex
	at     time.Time
	counts map[string]uint64
	rates  map[string]float64
}

// measure returns the rate of each of counts since the last measurement
// at least rateWindow before now; the keys name what is counted.
func (r *rateMeter) measure(now time.Time, counts map[string]uint64) map[string]float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.counts != nil && now.Sub(r.at) < rateWindow {
		return r.rates
	}
	rates := map[string]float64{}
	if secs := now.Sub(r.at).Seconds(); r.counts != nil && secs > 0 {
		for k, v := range counts {
			if prev, ok := r.counts[k]; ok && v >= prev {
				rates[k] = float64(v-prev) / secs
			}
		}
	}
	r.at, r.counts, r.rates = now, counts, rates
	return rates
}
