package state

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
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

// BenchmarkChurnOverTime is the churn case at the rate: CHURN_PER_MIN
// new ids per simulated minute (default 1,000,000 with -benchtime 1x in the
// recorded run; the benchmark's own default is 20,000 for the CI smoke) for
// CHURN_MINUTES minutes (default 4), a dedup Get + Put each, flush + commit
// every 1,000 ids followed by a Sweep of 2,000 entries. It logs the entries
// in the store at the end of every simulated minute, with a 1-minute TTL and
// without: bounded with it, growing without.
func BenchmarkChurnOverTime(b *testing.B) {
	perMin := envIntOr(b, "CHURN_PER_MIN", 20_000)
	minutes := envIntOr(b, "CHURN_MINUTES", 4)
	for _, tc := range []struct {
		name string
		ttl  map[string]TTL
	}{
		{"ttl_1m", map[string]TTL{"seen": {Duration: time.Minute}}},
		{"no_ttl", nil},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				sizes := churnOverTime(b, openStoreWith(b, Options{}), perMin, minutes, tc.ttl)
				b.Logf("%s: %d ids per simulated minute; entries stored after each minute: %v", tc.name, perMin, sizes)
				b.ReportMetric(float64(sizes[len(sizes)-1]), "final-entries")
				b.ReportMetric(float64(slices.Max(sizes)), "max-entries")
			}
		})
	}
}

// churnOverTime runs the churn minute by minute and returns the stored
// entry count after each minute.
func churnOverTime(t testing.TB, s *Store, perMin, minutes int, ttl map[string]TTL) []int {
	clk := newClock()
	be := ttlBackend(t, s, 0, clk, ttl)
	step := time.Minute / time.Duration(perMin)
	var sizes []int
	for i := range perMin * minutes {
		if i%100 == 0 {
			be.BeginBatch()
		}
		dedup(t, be, clk, time.Duration(i)*step, fmt.Sprint("id-", i))
		if i%100 == 99 {
			be.CommitBatch()
		}
		if i%1000 == 999 {
			flushCommit(t, s, be)
			if _, err := be.Sweep(2000); err != nil {
				t.Fatal(err)
			}
		}
		if (i+1)%perMin == 0 {
			sizes = append(sizes, storedEntries(t, s))
		}
	}
	return sizes
}

// storedEntries counts the operator's entries in the store.
func storedEntries(t testing.TB, s *Store) int {
	n := 0
	if err := s.Scan("op", KeyGroupRange{0, DefaultMaxParallelism}, func(int, []byte, []byte, []byte) error {
		n++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

// envIntOr reads a positive integer from the environment, or def.
func envIntOr(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}
