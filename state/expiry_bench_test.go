package state

import (
	"bytes"
	"testing"
	"time"
)

// BenchmarkBackendTTL is BenchmarkGetPut/batched (SetCurrentRecord, Get and
// Put of a 100-byte value, 100,000 cached keys in turn, batches of 100)
// with and without a TTL on the state, on the real clock (time.Now), so the
// difference is the whole cost of TTL per record: a clock read, the expiry
// check and, with on_read_and_write, the refresh of every read. hot1k is
// the same over 1,000 keys, where CPU cache misses do not hide that cost.
func BenchmarkBackendTTL(b *testing.B) {
	for _, tc := range []struct {
		name string
		ttl  map[string]TTL
	}{
		{"none", nil},
		{"on_create_and_write", map[string]TTL{"count": {Duration: time.Hour}}},
		{"on_read_and_write", map[string]TTL{"count": {Duration: time.Hour, Update: OnReadAndWrite}}},
		{"event_time", map[string]TTL{"count": {Duration: time.Hour, TimeDomain: EventTime}}},
	} {
		b.Run(tc.name, func(b *testing.B) { benchTTLGetPut(b, tc.ttl, benchKeys) })
		b.Run(tc.name+"/hot1k", func(b *testing.B) { benchTTLGetPut(b, tc.ttl, 1000) })
	}
}

func benchTTLGetPut(b *testing.B, ttl map[string]TTL, nKeys int) {
	s := openStoreWith(b, Options{})
	be, err := s.Backend(BackendOptions{Operator: "bench", Range: KeyGroupRange{0, DefaultMaxParallelism}, TTL: ttl})
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	keys, name, val := benchKeySet(nKeys), []byte("count"), bytes.Repeat([]byte("v"), benchValueLen)
	eventTime := time.Now().UnixNano()
	step := func(i int) {
		if err := be.SetCurrentRecord(keys[i%nKeys], eventTime+int64(i)); err != nil {
			b.Fatal(err)
		}
		if _, _, err := be.Get(name); err != nil {
			b.Fatal(err)
		}
		if err := be.Put(name, val); err != nil {
			b.Fatal(err)
		}
	}
	for i := range nKeys { // warm up: every key cached and dirty once
		step(i)
	}
	flushCommit(b, s, be)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if i%100 == 0 {
			be.BeginBatch()
		}
		step(i)
		if i%100 == 99 || i == b.N-1 {
			be.CommitBatch()
		}
	}
}

// BenchmarkChurn is the churn case: 1,000,000 new ids (one dedup
// Get and Put each) over 10 simulated minutes, a flush and commit every
// 1,000 ids followed by a Sweep of 2,000 entries. With a TTL of 1 minute the
// store ends with about a minute and a half of ids; without TTL, all of
// them. One op is the whole run; store-entries is what the store holds at
// the end and live-entries the last sweep pass's count.
func BenchmarkChurn(b *testing.B) {
	for _, tc := range []struct {
		name string
		ttl  map[string]TTL
	}{
		{"ttl_1m", map[string]TTL{"seen": {Duration: time.Minute}}},
		{"no_ttl", nil},
	} {
		b.Run(tc.name, func(b *testing.B) {
			const ids = 1_000_000
			for b.Loop() {
				s := openStoreWith(b, Options{})
				be := churn(b, s, ids, 10*time.Minute, tc.ttl, 2000)
				n := 0
				if err := s.Scan("op", KeyGroupRange{0, DefaultMaxParallelism}, func(int, []byte, []byte, []byte) error {
					n++
					return nil
				}); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(n), "store-entries")
				b.ReportMetric(float64(be.Stats().LiveEntries), "live-entries")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(ids), "ns/id")
			}
		})
	}
}
