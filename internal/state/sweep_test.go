package state

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// putAll writes state "n" of keys k0..k(n-1) at t0 + d.
func putAll(t testing.TB, b *Backend, clk *fakeClock, d time.Duration, prefix string, n int) {
	t.Helper()
	for i := range n {
		record(t, b, clk, d, fmt.Sprint(prefix, i))
		mustPut(t, b, "n", "v")
	}
}

// A sweep visits at most its budget, resumes where it stopped, ends its
// pass at the end of the range, and the next call starts a new pass.
func TestSweepResumesAndWraps(t *testing.T) {
	s, clk := openStore(t), newClock()
	b := ttlBackend(t, s, 0, clk, ttlFor("n", 10*time.Second, OnCreateAndWrite, NeverReturnExpired))
	putAll(t, b, clk, 0, "k", 100)
	flushCommit(t, s, b)
	clk.set(20 * time.Second)
	for i, want := range []int{30, 30, 30, 10} {
		n, err := b.Sweep(30)
		if err != nil || n != want {
			t.Fatalf("sweep %d: %d, %v; want %d", i, n, err, want)
		}
		if passes := b.Stats().SweepPasses; passes != uint64(i/3) {
			t.Fatalf("after sweep %d: %d passes, want %d", i, passes, i/3)
		}
	}
	// The deletes wait in the spill: the store changes only by a flush.
	if c := committed(t, s, "op"); len(c) != 100 {
		t.Fatalf("store holds %d entries before the flush, want 100", len(c))
	}
	flushCommit(t, s, b)
	if c := committed(t, s, "op"); len(c) != 0 {
		t.Fatalf("store holds %d entries after the flush", len(c))
	}
	if n, err := b.Sweep(30); err != nil || n != 0 {
		t.Fatalf("sweep of an empty range: %d, %v", n, err)
	}
	if st := b.Stats(); st.SweepPasses != 2 || st.Swept != 100 || st.ExpiredInSweep != 100 || st.LiveEntries != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// A pass's tally is the entries it left in place and their bytes; expired
// ones are not counted, and state without TTL is.
func TestSweepCountsLiveState(t *testing.T) {
	s, clk := openStore(t), newClock()
	b := ttlBackend(t, s, 0, clk, map[string]TTL{"short": {Duration: 10 * time.Second}, "long": {Duration: time.Hour}})
	for i := range 30 {
		record(t, b, clk, 0, fmt.Sprint("k", i))
		mustPut(t, b, "short", "v")
		mustPut(t, b, "long", "vv")
		if i%3 == 0 {
			mustPut(t, b, "forever", "vvv")
		}
	}
	flushCommit(t, s, b)
	wantBytes := int64(0)
	for _, name := range []string{"long", "forever"} {
		for i := range 30 {
			key := fmt.Sprint("k", i)
			if name == "forever" && i%3 != 0 {
				continue
			}
			k := AppendStateKey(nil, "op", KeyGroup([]byte(key), DefaultMaxParallelism), []byte(name), []byte(key))
			v, closer, err := s.DB().Get(k)
			if err != nil {
				t.Fatal(err)
			}
			wantBytes += int64(len(k) + len(v))
			closer.Close()
		}
	}
	clk.set(20 * time.Second)
	if n, err := b.Sweep(1000); err != nil || n != 30 {
		t.Fatalf("sweep: %d, %v; want 30 expired", n, err)
	}
	if st := b.Stats(); st.SweepPasses != 1 || st.LiveEntries != 40 || st.LiveBytes != wantBytes {
		t.Fatalf("live %d entries, %d bytes after %d passes; want 40, %d after 1", st.LiveEntries, st.LiveBytes, st.SweepPasses, wantBytes)
	}
}

// An entry written in the cache since the last flush is skipped (its new
// value supersedes the stored one); a clean cached entry that expired is
// removed through the cache, so even ReturnExpiredIfNotCleaned stops
// returning it.
func TestSweepAndTheCache(t *testing.T) {
	s, clk := openStore(t), newClock()
	b := ttlBackend(t, s, 0, clk, ttlFor("n", 10*time.Second, OnCreateAndWrite, ReturnExpiredIfNotCleaned))
	putAll(t, b, clk, 0, "k", 2)
	flushCommit(t, s, b)
	record(t, b, clk, 5*time.Second, "k1")
	wantGet(t, b, "n", ptr("v")) // cached, clean
	record(t, b, clk, 20*time.Second, "k0")
	mustPut(t, b, "n", "new") // cached, dirty, expires at 30 s
	if n, err := b.Sweep(10); err != nil || n != 1 {
		t.Fatalf("sweep: %d, %v; want 1 (k1)", n, err)
	}
	reads := b.Stats().PebbleReads
	record(t, b, clk, 20*time.Second, "k1")
	wantGet(t, b, "n", nil)
	if b.Stats().PebbleReads != reads {
		t.Fatal("the swept entry was read from the store again: the cache did not record the delete")
	}
	flushCommit(t, s, b)
	if c := committed(t, s, "op"); len(c) != 1 || c["n/k0"] != "new" {
		t.Fatalf("store = %v, want only n/k0 = new", c)
	}
	wantExpiry(t, s, "n/k0", 30*time.Second)
}

// Sweep deletes entries that were evicted to the spill and expired there.
func TestSweepReadsThroughTheSpill(t *testing.T) {
	s, clk := openStore(t), newClock()
	b := ttlBackend(t, s, 2, clk, ttlFor("n", 10*time.Second, OnCreateAndWrite, NeverReturnExpired))
	putAll(t, b, clk, 0, "k", 20)
	clk.set(20 * time.Second)
	if n, err := b.Sweep(100); err != nil || n < 18 {
		t.Fatalf("sweep: %d, %v; want the ≥18 spilled entries", n, err)
	}
	flushCommit(t, s, b)
	if c := committed(t, s, "op"); len(c) != 0 {
		t.Fatalf("store holds %v", c)
	}
}

func TestSweepRefusals(t *testing.T) {
	s, clk := openStore(t), newClock()
	b := ttlBackend(t, s, 0, clk, nil)
	if n, err := b.Sweep(0); n != 0 || err != nil {
		t.Errorf("Sweep(0) = %d, %v", n, err)
	}
	b.BeginBatch()
	if _, err := b.Sweep(10); !errors.Is(err, ErrInBatch) {
		t.Errorf("Sweep in a batch: %v, want ErrInBatch", err)
	}
	b.CommitBatch()
	b.Close()
	if _, err := b.Sweep(10); !errors.Is(err, ErrClosed) {
		t.Errorf("Sweep after Close: %v, want ErrClosed", err)
	}
}

// A value that does not decode stops the sweep with ErrCorrupt.
func TestSweepReportsCorruptValue(t *testing.T) {
	s, clk := openStore(t), newClock()
	key := []byte("k")
	if err := s.DB().Set(AppendStateKey(nil, "op", KeyGroup(key, 128), []byte("n"), key), []byte{0x80}, nil); err != nil {
		t.Fatal(err)
	}
	b := ttlBackend(t, s, 0, clk, nil)
	if _, err := b.Sweep(10); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Sweep over a corrupt value: %v, want ErrCorrupt", err)
	}
}

// A sweep stays inside its task's key-group range.
func TestSweepStaysInRange(t *testing.T) {
	s, clk := openStore(t), newClock()
	ttl := ttlFor("n", time.Second, OnCreateAndWrite, NeverReturnExpired)
	var tasks [2]*Backend
	for i := range tasks {
		b, err := s.Backend(BackendOptions{Operator: "op", Range: RangeForTask(i, 2, 128), TTL: ttl, Clock: clk.read})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		tasks[i] = b
	}
	pb := s.NewBatch()
	for i := range 100 {
		key := fmt.Sprint("k", i)
		b := tasks[TaskForKeyGroup(KeyGroup([]byte(key), 128), 2, 128)]
		record(t, b, clk, 0, key)
		mustPut(t, b, "n", "v")
	}
	for _, b := range tasks {
		if _, err := b.FlushTo(pb); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Commit(pb); err != nil {
		t.Fatal(err)
	}
	clk.set(time.Minute)
	n, err := tasks[0].Sweep(1000)
	if err != nil {
		t.Fatal(err)
	}
	flushCommit(t, s, tasks[0])
	left := committed(t, s, "op")
	if n == 0 || n+len(left) != 100 {
		t.Fatalf("task 0 swept %d, %d left, want a split of 100", n, len(left))
	}
	for id := range left {
		key := id[len("n/"):]
		if TaskForKeyGroup(KeyGroup([]byte(key), 128), 2, 128) != 1 {
			t.Fatalf("%s of task 0 was not swept", id)
		}
	}
}

// churn runs ids new ids, one per record, over span of simulated time:
// batches of 100 records, and every 1,000 records a flush, committed, and
// a sweep of sweepBudget entries (none when 0). It returns the backend.
func churn(t testing.TB, s *Store, ids int, span time.Duration, ttl map[string]TTL, sweepBudget int) *Backend {
	t.Helper()
	clk := newClock()
	b := ttlBackend(t, s, 0, clk, ttl)
	step := span / time.Duration(ids)
	for i := range ids {
		if i%100 == 0 {
			b.BeginBatch()
		}
		if !dedup(t, b, clk, time.Duration(i)*step, fmt.Sprint("id-", i)) {
			t.Fatalf("new id %d seen as a duplicate", i)
		}
		if i%100 == 99 {
			b.CommitBatch()
		}
		if i%1000 == 999 {
			flushCommit(t, s, b)
			if _, err := b.Sweep(sweepBudget); err != nil {
				t.Fatal(err)
			}
		}
	}
	clk.set(span)
	flushCommit(t, s, b)
	return b
}

// TestStateStaysBoundedWithTTL: 100,000 new ids over 10 simulated minutes
// with a TTL of 1 minute. With sweeps (2,000 entries per 1,000 records) the
// store holds about a minute of ids (10,000) and never drops a live one;
// without TTL it holds all 100,000.
func TestStateStaysBoundedWithTTL(t *testing.T) {
	const ids, span = 100_000, 10 * time.Minute
	perMinute := ids / 10
	s := openStore(t)
	b := churn(t, s, ids, span, map[string]TTL{"seen": {Duration: time.Minute}}, 2000)
	left := committed(t, s, "op")
	if len(left) < perMinute || len(left) > 2*perMinute {
		t.Fatalf("store holds %d ids, want between one and two minutes' worth (%d..%d)", len(left), perMinute, 2*perMinute)
	}
	for i := ids - perMinute + 1; i < ids; i++ { // written within the last minute: live
		if _, ok := left[fmt.Sprint("seen/id-", i)]; !ok {
			t.Fatalf("live id %d is missing", i)
		}
	}
	st := b.Stats()
	t.Logf("with TTL: %d ids in the store, sweep: %d live entries, %d bytes, %d passes, %d expired in sweep, %d in flush",
		len(left), st.LiveEntries, st.LiveBytes, st.SweepPasses, st.ExpiredInSweep, st.ExpiredInFlush)
	if st.LiveEntries < int64(perMinute/2) || st.LiveEntries > int64(2*perMinute) || st.SweepPasses < 5 {
		t.Fatalf("sweep saw %d live entries over %d passes", st.LiveEntries, st.SweepPasses)
	}

	s = openStore(t)
	churn(t, s, ids, span, nil, 2000)
	if n := len(committed(t, s, "op")); n != ids {
		t.Fatalf("without TTL the store holds %d ids, want all %d", n, ids)
	}
}
