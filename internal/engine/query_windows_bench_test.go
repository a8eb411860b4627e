package engine

import (
	"context"
	"slices"
	"testing"
	"time"
)

// queryWindow is how long BenchmarkLiveQueryWindows sends queries, then
// none, in turn: not a multiple of the checkpoint interval (1 s), so that
// checkpoints fall into both kinds of window alike.
const queryWindow = 1500 * time.Millisecond

// BenchmarkLiveQueryWindows measures the cost of 100 live queries/s inside
// one run of the payment-risk pipeline over a backlog of b.N events: the
// querier sends for one window, pauses for the next, and so on, and the
// records processed per window are compared. A change of the machine's
// load lasts longer than a window, so it reaches the queried and the quiet
// windows of one pair alike, where it swamps a comparison of separate runs
// (BenchmarkLiveQueryOverhead). Reported: the median over pairs of
// (records in a queried window) / (mean of the quiet windows before and
// after it), goal ≥ 0.97, and the number of pairs. The first and last
// windows (start-up, the tail of the backlog) are left out.
func BenchmarkLiveQueryWindows(b *testing.B) {
	r := openPaymentRisk(b, b.N)
	q, err := startQuerier(context.Background(), r.cfg, 100)
	if err != nil {
		b.Fatal(err)
	}
	q.paused.Store(true)
	b.ResetTimer()
	r.start()
	counts := processedPerWindow(r.p, q, uint64(b.N))
	r.end(b)
	b.StopTimer()
	q.stop()
	ratios := windowRatios(counts)
	if len(ratios) < 3 {
		// testing runs every benchmark once with b.N = 1 first.
		b.Logf("%d windows of %s: too few pairs to report; raise -benchtime (events)", len(counts), queryWindow)
		return
	}
	b.ReportMetric(median(ratios), "queried/quiet")
	b.ReportMetric(float64(len(ratios)), "pairs")
	reportQueries(b, q)
}

// processedPerWindow runs the windows until n records are processed and
// returns the records processed in each; even windows are quiet, odd ones
// queried.
func processedPerWindow(p *Pipeline, q *querier, n uint64) []uint64 {
	var counts []uint64
	last := p.Stats().Processed
	for w := 0; last < n; w++ {
		q.paused.Store(w%2 == 0)
		end := time.Now().Add(queryWindow)
		for time.Now().Before(end) && p.Stats().Processed < n {
			time.Sleep(5 * time.Millisecond)
		}
		now := p.Stats().Processed
		counts = append(counts, now-last)
		last = now
	}
	q.paused.Store(true)
	return counts
}

// windowRatios pairs each queried window (odd index) with the mean of the
// quiet windows around it, leaving out the first and the last window.
func windowRatios(counts []uint64) []float64 {
	var out []float64
	for i := 3; i+1 < len(counts)-1; i += 2 {
		quiet := float64(counts[i-1]+counts[i+1]) / 2
		if quiet > 0 {
			out = append(out, float64(counts[i])/quiet)
		}
	}
	return out
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
