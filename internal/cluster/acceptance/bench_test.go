package acceptance

import (
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
)

// Environment of BenchmarkClusterThroughput (scripts/bench-cluster.sh).
const (
	benchEnv        = "CLUSTER_BENCH"         // "1" runs it; anything else skips it
	benchRecordsEnv = "CLUSTER_BENCH_RECORDS" // records per round (default 100,000)
	benchRoundsEnv  = "CLUSTER_BENCH_ROUNDS"  // rounds per number of workers (default 3)
)

// benchWorkerCounts are the numbers of workers the rounds alternate.
var benchWorkerCounts = []int{1, 3}

// BenchmarkClusterThroughput measures the throughput of the acceptance
// pipeline (sum2, idempotent sink; the operator at 6 tasks, even over 1
// and over 3 workers) with 1 worker and with 3 on the same 3-node
// cluster, side by side: the rounds alternate 1 and 3 workers, so a
// change of load on the machine shows in both. Each round gets fresh
// streams, control bucket and Object Store, publishes its records before
// any worker starts, then starts the workers and measures from their
// start to the stream time stamp of the last output (process start,
// election, stabilization, the first assignment and the operator's
// compilation included), and from the first and the last "tasks started"
// line to the same. At the end of the round the workers are stopped by
// SIGTERM and their "pipeline stopped" lines give each worker's records
// read: with filter-on-read every worker reads every record, and reads /
// records is the read amplification. The workers' CPU time while they
// run their tasks (sampled from /proc) prices a read that the key-group
// filter drops (perRecordCosts).
//
// It runs its rounds once, whatever b.N: run it with -benchtime 1x. It
// is skipped unless CLUSTER_BENCH=1. Sizes: CLUSTER_BENCH_RECORDS
// (default 100,000), CLUSTER_BENCH_ROUNDS per number of workers (default
// 3). ACCEPTANCE_LOGS=<dir> keeps the workers' logs of every round.
func BenchmarkClusterThroughput(b *testing.B) {
	if os.Getenv(benchEnv) != "1" {
		b.Skipf("%s=1 runs it (scripts/bench-cluster.sh)", benchEnv)
	}
	records := envInt(b, benchRecordsEnv, 100_000)
	rounds := envInt(b, benchRoundsEnv, 3)
	c := newBenchCluster(b)
	events := newEvents(records, rand.New(rand.NewPCG(1, 0))) // the same records every round
	byWorkers := map[int][]benchRound{}
	for i := range rounds * len(benchWorkerCounts) {
		n := benchWorkerCounts[i%len(benchWorkerCounts)]
		r := c.round(b, i+1, n, events)
		benchLog("%s", r)
		byWorkers[n] = append(byWorkers[n], r)
	}
	one, three := medianRound(byWorkers[1]), medianRound(byWorkers[3])
	b.ReportMetric(0, "ns/op") // one op is the whole set of rounds
	b.ReportMetric(one.rate, "records/s-1w")
	b.ReportMetric(three.rate, "records/s-3w")
	b.ReportMetric(three.rate/one.rate, "speedup-3w/1w")
	b.ReportMetric(one.amplification, "read-amp-1w")
	b.ReportMetric(three.amplification, "read-amp-3w")
	b.ReportMetric(one.running.Seconds(), "worker-cpu-s-1w")
	b.ReportMetric(three.running.Seconds(), "worker-cpu-s-3w")
	readCost, processCost := perRecordCosts(one, three, records)
	b.ReportMetric(readCost, "filtered-read-us/record")
	b.ReportMetric(processCost, "processed-us/record")
	for _, m := range []benchMedians{one, three} {
		benchLog("medians of %d rounds of %d worker(s), %d records: %.0f records/s from the workers' start, %.0f from the first tasks started, %.0f from the last; "+
			"read amplification %.2f; workers' cpu %s, of which %s running; nats cpu while running %s",
			rounds, m.workers, records, m.rate, m.rateAfterFirst, m.rateAfterLast, m.amplification,
			m.cpu.Round(10*time.Millisecond), m.running.Round(10*time.Millisecond), m.natsCPU.Round(10*time.Millisecond))
	}
	benchLog("3 workers / 1 worker: %.2f from the workers' start, %.2f from the first tasks started, %.2f from the last",
		three.rate/one.rate, three.rateAfterFirst/one.rateAfterFirst, three.rateAfterLast/one.rateAfterLast)
	benchLog("filter-on-read: each of 3 workers reads every record and processes a third; from the workers' cpu while running, "+
		"a record read and filtered out costs about %.1f µs, a record read and processed %.1f µs (%.0f%% of it the read)",
		readCost, readCost+processCost, 100*readCost/(readCost+processCost))
}

// benchMedians are the medians of one number of workers' rounds.
type benchMedians struct {
	workers                                            int
	rate, rateAfterFirst, rateAfterLast, amplification float64
	cpu, running, natsCPU                              time.Duration
}

func medianRound(rs []benchRound) benchMedians {
	m := benchMedians{workers: rs[0].workers}
	m.rate = median(rs, benchRound.rate)
	m.rateAfterFirst = median(rs, benchRound.rateAfterFirst)
	m.rateAfterLast = median(rs, benchRound.rateAfterLast)
	m.amplification = median(rs, benchRound.amplification)
	m.cpu = time.Duration(median(rs, func(r benchRound) float64 { return float64(r.workerCPU()) }))
	m.running = time.Duration(median(rs, func(r benchRound) float64 { return float64(r.runningCPU()) }))
	m.natsCPU = time.Duration(median(rs, func(r benchRound) float64 { return float64(r.natsCPU) }))
	return m
}

// median is the median of f over rs (the mean of the middle two for an
// even count).
func median(rs []benchRound, f func(benchRound) float64) float64 {
	if len(rs) == 0 {
		return 0
	}
	vs := make([]float64, len(rs))
	for i, r := range rs {
		vs[i] = f(r)
	}
	slices.Sort(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2]
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
}

// perRecordCosts splits the workers' CPU time while running (from
// their tasks started to the last output) per record, in µs: 1 worker
// reads and processes n records (c1 = n·(r+p)), 3 workers each read n
// and process n/3 (c3 = 3n·r + n·p). The extra reads (2n, or what the
// read amplifications say) so cost c3 − c1, and p = c1/n − r: r is a
// record read and dropped by the key-group filter, p what processing it
// adds. The 2 extra processes' own costs while running (heartbeats,
// checkpoints) count as reads.
func perRecordCosts(one, three benchMedians, n int) (read, process float64) {
	c1, c3 := float64(one.running.Microseconds()), float64(three.running.Microseconds())
	read = (c3 - c1) / ((three.amplification - one.amplification) * float64(n))
	return read, c1/float64(n) - read*one.amplification
}

// envInt reads a positive integer from the environment, def when unset.
func envInt(b *testing.B, name string, def int) int {
	b.Helper()
	s, ok := os.LookupEnv(name)
	if !ok || s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 {
		b.Fatalf("%s=%q: want a positive integer", name, s)
	}
	return v
}
