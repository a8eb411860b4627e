package state

import (
	"testing"
	"time"
)

// BenchmarkIncrementalFlush is the task's side of a checkpoint of 1M dirty
// keys with 8-byte values (the bench guest's counters): the cut
// (BeginFlush), the steps of 1024 entries the engine runs between batches
// and the assembly of the commit batch (Flush.ApplyTo, on the committer's
// goroutine). Reported: the cut, the longest and the mean step.
func BenchmarkIncrementalFlush(b *testing.B) {
	const keys, step = 1_000_000, 1024
	s := openStoreWith(b, Options{})
	be := fullBackend(b, s, "bench", keys+1)
	name, val := []byte("count"), []byte("12345678")
	var cut, longest, total time.Duration
	steps := 0
	for range b.N {
		b.StopTimer()
		for _, k := range benchKeySet(keys) {
			mustKey(b, be, string(k))
			if err := be.Put(name, val); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		start := time.Now()
		if err := be.BeginFlush(); err != nil {
			b.Fatal(err)
		}
		cut = max(cut, time.Since(start))
		for done := false; !done; steps++ {
			start := time.Now()
			var err error
			if done, err = be.FlushStep(step); err != nil {
				b.Fatal(err)
			}
			d := time.Since(start)
			longest, total = max(longest, d), total+d
		}
		f, err := be.Flush()
		if err != nil {
			b.Fatal(err)
		}
		pb := s.NewBatch()
		if err := f.ApplyTo(pb); err != nil {
			b.Fatal(err)
		}
		pb.Close() // not committed: the benchmark is the task's side
		be.EndFlush()
	}
	b.ReportMetric(float64(cut.Nanoseconds()), "cut-ns")
	b.ReportMetric(float64(longest.Nanoseconds()), "max-step-ns")
	b.ReportMetric(float64(total.Nanoseconds())/float64(steps), "mean-step-ns")
}
