package state

import (
	"fmt"
	"maps"
	"testing"
	"time"
)

// The traced case: the entry for id 42 is created at t=0 with a TTL of 60 s
// and the record is redelivered at t=65 s. With 60 s the entry has expired,
// the Get finds nothing, and a dedup guest processes the record twice; with
// 120 s the redelivery is caught. Checked with the entry in the cache and
// after a restart that reads it back from the store (the expiry travels with
// the state).
func TestTTLTracedRedelivery(t *testing.T) {
	for _, tc := range []struct {
		ttl        time.Duration
		wantTwice  bool
		afterStart bool
	}{
		{60 * time.Second, true, false},
		{60 * time.Second, true, true},
		{120 * time.Second, false, false},
		{120 * time.Second, false, true},
	} {
		t.Run(fmt.Sprintf("ttl=%v/restart=%t", tc.ttl, tc.afterStart), func(t *testing.T) {
			s, clk := openStore(t), newClock()
			ttl := map[string]TTL{"seen": {Duration: tc.ttl}}
			b := ttlBackend(t, s, 0, clk, ttl)
			if !dedup(t, b, clk, 0, "42") {
				t.Fatal("first delivery of id 42 was not processed")
			}
			flushCommit(t, s, b) // the checkpoint holds id 42 with its expiry
			wantExpiry(t, s, "seen/42", tc.ttl)
			if tc.afterStart {
				b.Close()
				b = ttlBackend(t, s, 0, clk, ttl)
			}
			if twice := dedup(t, b, clk, 65*time.Second, "42"); twice != tc.wantTwice {
				t.Fatalf("redelivery at t=65s processed: %t, want %t", twice, tc.wantTwice)
			}
		})
	}
}

// TestTTLUpdateVisibilityMatrix: Put at 0 s with a TTL of 10 s, flush at
// 1 s, then Gets; Sweep at 31 s and a last Get. OnReadAndWrite extends the
// expiry on each live read (5 s -> 15 s, 12 s -> 22 s); an expired value is
// absent under NeverReturnExpired and returned under
// ReturnExpiredIfNotCleaned until the sweep cleans it.
func TestTTLUpdateVisibilityMatrix(t *testing.T) {
	gets := []time.Duration{5 * time.Second, 12 * time.Second, 30 * time.Second}
	tests := []struct {
		u    UpdateType
		v    Visibility
		want string // present (P) or absent (A) at each Get, then after the sweep
		// removedBy is the cleanup that removed the value: the Get that
		// found it expired, the flush at 31 s (the value was refreshed, so
		// it was written since the last flush) or the sweep.
		removedBy string
	}{
		{OnCreateAndWrite, NeverReturnExpired, "PAA|A", "access"},
		{OnReadAndWrite, NeverReturnExpired, "PPA|A", "access"},
		{OnCreateAndWrite, ReturnExpiredIfNotCleaned, "PPP|A", "sweep"},
		{OnReadAndWrite, ReturnExpiredIfNotCleaned, "PPP|A", "flush"},
	}
	for _, tc := range tests {
		t.Run(tc.u.String()+"/"+tc.v.String(), func(t *testing.T) {
			s, clk := openStore(t), newClock()
			b := ttlBackend(t, s, 0, clk, ttlFor("n", 10*time.Second, tc.u, tc.v))
			record(t, b, clk, 0, "k")
			mustPut(t, b, "n", "v")
			clk.set(time.Second)
			flushCommit(t, s, b)
			got := ""
			for _, d := range gets {
				record(t, b, clk, d, "k")
				got += presence(t, b, "n")
			}
			clk.set(31 * time.Second)
			flushCommit(t, s, b) // drops made by Gets reach the store
			if _, err := b.Sweep(100); err != nil {
				t.Fatal(err)
			}
			flushCommit(t, s, b)
			record(t, b, clk, 32*time.Second, "k")
			got += "|" + presence(t, b, "n")
			if got != tc.want {
				t.Fatalf("presence %s, want %s", got, tc.want)
			}
			st := b.Stats()
			by := map[string]uint64{"access": st.ExpiredOnAccess, "flush": st.ExpiredInFlush, "sweep": st.ExpiredInSweep}
			if st.Expired() != 1 || by[tc.removedBy] != 1 {
				t.Fatalf("expired by access/flush/sweep = %d/%d/%d, want 1 by %s",
					st.ExpiredOnAccess, st.ExpiredInFlush, st.ExpiredInSweep, tc.removedBy)
			}
			if c := committed(t, s, "op"); len(c) != 0 {
				t.Fatalf("store still holds %v", c)
			}
		})
	}
}

// A Put restarts the expiry under both update types, and a live read under
// OnReadAndWrite is persisted with its new expiry.
func TestTTLWriteAndReadSetExpiry(t *testing.T) {
	for _, u := range []UpdateType{OnCreateAndWrite, OnReadAndWrite} {
		t.Run(u.String(), func(t *testing.T) {
			s, clk := openStore(t), newClock()
			b := ttlBackend(t, s, 0, clk, ttlFor("n", 10*time.Second, u, NeverReturnExpired))
			record(t, b, clk, 0, "k")
			mustPut(t, b, "n", "v")
			record(t, b, clk, 8*time.Second, "k")
			mustPut(t, b, "n", "v")
			flushCommit(t, s, b)
			wantExpiry(t, s, "n/k", 18*time.Second)
			record(t, b, clk, 12*time.Second, "k")
			wantGet(t, b, "n", ptr("v"))
			flushCommit(t, s, b)
			if u == OnReadAndWrite {
				wantExpiry(t, s, "n/k", 22*time.Second)
			} else {
				wantExpiry(t, s, "n/k", 18*time.Second)
			}
		})
	}
}

// Event time: the expiry of an event-time state follows the records' event
// times, not the clock; a record without event time uses the clock; a late
// record's read does not shorten an expiry; cleanup measures against the
// largest event time seen, and before one is seen leaves event-time state
// alone.
func TestTTLEventTime(t *testing.T) {
	s, clk := openStore(t), newClock()
	ttl := map[string]TTL{
		"e": {Duration: 10 * time.Second, TimeDomain: EventTime, Update: OnReadAndWrite},
		"p": {Duration: 10 * time.Second},
	}
	b := ttlBackend(t, s, 0, clk, ttl)
	eventRecord(t, b, time.Hour, "k")
	mustPut(t, b, "e", "v")
	mustPut(t, b, "p", "v")
	// A late record (event time 50 min) finds it live and must not cut its
	// life short to 50 min + 10 s.
	eventRecord(t, b, 50*time.Minute, "k")
	wantGet(t, b, "e", ptr("v"))
	eventRecord(t, b, time.Hour+9*time.Second, "k")
	wantGet(t, b, "e", ptr("v")) // refreshed to 1h+19s
	eventRecord(t, b, time.Hour+19*time.Second, "k")
	wantGet(t, b, "e", nil)      // event time passed the expiry ...
	wantGet(t, b, "p", ptr("v")) // ... while the clock stands at t0

	// Without an event time (SetCurrentKey), event-time state is measured
	// on the clock.
	record(t, b, clk, 0, "clock")
	mustPut(t, b, "e", "v")
	record(t, b, clk, 11*time.Second, "clock")
	wantGet(t, b, "e", nil)
	// Processing-time state follows the clock whatever the event time.
	eventRecord(t, b, time.Hour, "k")
	wantGet(t, b, "p", nil)

	// Cleanup: a fresh backend has seen no event time, so its sweep leaves
	// event-time state alone; once a record brings one, it is measured.
	eventRecord(t, b, 2*time.Hour, "sweep")
	mustPut(t, b, "e", "v")
	flushCommit(t, s, b)
	b.Close()
	b = ttlBackend(t, s, 0, clk, ttl)
	if n, err := b.Sweep(100); err != nil || n != 0 {
		t.Fatalf("sweep before any event time: %d, %v; want 0", n, err)
	}
	eventRecord(t, b, 3*time.Hour, "other")
	if n, err := b.Sweep(100); err != nil || n != 1 {
		t.Fatalf("sweep at event time 3h: %d, %v; want 1 (e/sweep)", n, err)
	}
	flushCommit(t, s, b)
	if c := committed(t, s, "op"); len(c) != 0 {
		t.Fatalf("store still holds %v", c)
	}
}

// FlushTo never writes an expired value: a value written and expired
// before the flush becomes a delete.
func TestTTLFlushWritesExpiredAsDelete(t *testing.T) {
	s, clk := openStore(t), newClock()
	b := ttlBackend(t, s, 0, clk, ttlFor("n", 10*time.Second, OnCreateAndWrite, ReturnExpiredIfNotCleaned))
	record(t, b, clk, 0, "old")
	mustPut(t, b, "n", "v")
	record(t, b, clk, 5*time.Second, "young")
	mustPut(t, b, "n", "v")
	clk.set(12 * time.Second)
	pb := s.NewBatch()
	if _, err := b.FlushTo(pb); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"n/old": "<deleted>", "n/young": "v"}
	if got := batchContents(t, pb); !maps.Equal(got, want) {
		t.Fatalf("flush wrote %v, want %v", got, want)
	}
	if err := s.Commit(pb); err != nil {
		t.Fatal(err)
	}
	if st := b.Stats(); st.ExpiredInFlush != 1 || st.Expired() != 1 {
		t.Fatalf("stats %+v, want 1 expired in flush", st)
	}
	// The flush cleaned it: even ReturnExpiredIfNotCleaned no longer sees it.
	record(t, b, clk, 12*time.Second, "old")
	wantGet(t, b, "n", nil)
}

// Expiries are part of the committed state: they survive closing and
// reopening the store, and a backend without a TTL for the name honours
// them.
func TestTTLSurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	clk := newClock()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := ttlBackend(t, s, 0, clk, map[string]TTL{"seen": {Duration: time.Minute}})
	record(t, b, clk, 0, "42")
	mustPut(t, b, "seen", "1")
	flushCommit(t, s, b)
	b.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	if s, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wantExpiry(t, s, "seen/42", time.Minute)
	for _, ttl := range []map[string]TTL{{"seen": {Duration: time.Minute}}, nil} {
		b := ttlBackend(t, s, 0, clk, ttl)
		record(t, b, clk, 30*time.Second, "42")
		if _, found, err := b.Get([]byte("seen")); err != nil || !found {
			t.Fatalf("TTL %v: Get at 30 s: %t, %v; want present", ttl, found, err)
		}
		record(t, b, clk, 65*time.Second, "42")
		if _, found, err := b.Get([]byte("seen")); err != nil || found {
			t.Fatalf("TTL %v: Get at 65 s: %t, %v; want absent", ttl, found, err)
		}
		b.Close()
	}
}

// A dormant key that returns after its state expired sees it absent, and
// starts afresh; whether or not the sweep reached it first. Under
// ReturnExpiredIfNotCleaned it sees the old value unless cleanup ran.
func TestTTLDormantKeyReturns(t *testing.T) {
	tests := []struct {
		v     Visibility
		sweep bool
		want  *string
	}{
		{NeverReturnExpired, true, nil},
		{NeverReturnExpired, false, nil},
		{ReturnExpiredIfNotCleaned, true, nil},
		{ReturnExpiredIfNotCleaned, false, ptr("old")},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/sweep=%t", tc.v, tc.sweep), func(t *testing.T) {
			s, clk := openStore(t), newClock()
			b := ttlBackend(t, s, 16, clk, ttlFor("n", time.Minute, OnCreateAndWrite, tc.v))
			record(t, b, clk, 0, "dormant")
			mustPut(t, b, "n", "old")
			// Ten minutes of other keys push the dormant one out of the cache.
			for i := range 600 {
				record(t, b, clk, time.Duration(i)*time.Second, fmt.Sprint("busy-", i))
				mustPut(t, b, "n", "x")
				if i%60 == 59 {
					flushCommit(t, s, b)
					if tc.sweep {
						if _, err := b.Sweep(1000); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			flushCommit(t, s, b)
			record(t, b, clk, 10*time.Minute, "dormant")
			wantGet(t, b, "n", tc.want)
			mustPut(t, b, "n", "new")
			flushCommit(t, s, b)
			wantExpiry(t, s, "n/dormant", 11*time.Minute)
			if tc.sweep {
				// The sweep kept the store near one TTL of keys (60 busy keys
				// a minute), far below the 600 written.
				if n := len(committed(t, s, "op")); n > 200 {
					t.Fatalf("store holds %d entries after sweeping", n)
				}
			}
		})
	}
}

// A read's refresh (OnReadAndWrite) and a read's drop of an expired value
// are writes of the guest batch: a rollback undoes them, a commit keeps
// them.
func TestTTLRollbackOfReadEffects(t *testing.T) {
	s, clk := openStore(t), newClock()
	b := ttlBackend(t, s, 0, clk, ttlFor("n", 10*time.Second, OnReadAndWrite, NeverReturnExpired))
	record(t, b, clk, 0, "k")
	mustPut(t, b, "n", "v")
	flushCommit(t, s, b)

	b.BeginBatch()
	record(t, b, clk, 5*time.Second, "k")
	wantGet(t, b, "n", ptr("v")) // refresh to 15 s
	if st := b.Stats(); st.Dirty != 1 || st.Refreshed != 1 {
		t.Fatalf("after the refresh: %+v", st)
	}
	b.RollbackBatch()
	if st := b.Stats(); st.Dirty != 0 {
		t.Fatalf("rollback left %d dirty entries", st.Dirty)
	}
	record(t, b, clk, 11*time.Second, "k") // expiry is 10 s again
	b.BeginBatch()
	wantGet(t, b, "n", nil) // dropped
	b.RollbackBatch()
	if st := b.Stats(); st.Dirty != 0 {
		t.Fatalf("rollback of the drop left %d dirty entries", st.Dirty)
	}
	wantExpiry(t, s, "n/k", 10*time.Second)

	// The same refresh in a committed batch reaches the store.
	b2 := ttlBackend(t, openStore(t), 0, clk, ttlFor("n", 10*time.Second, OnReadAndWrite, NeverReturnExpired))
	record(t, b2, clk, 0, "k")
	mustPut(t, b2, "n", "v")
	b2.BeginBatch()
	record(t, b2, clk, 5*time.Second, "k")
	wantGet(t, b2, "n", ptr("v"))
	b2.CommitBatch()
	flushCommit(t, b2.store, b2)
	wantExpiry(t, b2.store, "n/k", 15*time.Second)
}

// With TTL, cached reads and writes still do not allocate.
func TestTTLHotPathDoesNotAllocate(t *testing.T) {
	s, clk := openStore(t), newClock()
	b := ttlBackend(t, s, 0, clk, ttlFor("count", time.Hour, OnReadAndWrite, NeverReturnExpired))
	key, name, val := []byte("user-42"), []byte("count"), []byte("value")
	record(t, b, clk, 0, "user-42")
	mustPut(t, b, "count", "value")
	allocs := testing.AllocsPerRun(1000, func() {
		clk.now += int64(time.Millisecond)
		b.BeginBatch()
		if err := b.SetCurrentRecord(key, clk.now); err != nil {
			t.Fatal(err)
		}
		if _, _, err := b.Get(name); err != nil {
			t.Fatal(err)
		}
		if err := b.Put(name, val); err != nil {
			t.Fatal(err)
		}
		b.CommitBatch()
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per record with TTL, want 0", allocs)
	}
}

// The clock is read at most once per record: all state calls of a record
// agree on "now" (a value cannot expire between the Get and the Put of a
// read-modify-write), and a record that touches no TTL'd state, or a
// backend without TTL, never reads it.
func TestTTLClockReadOncePerRecord(t *testing.T) {
	s := openStore(t)
	reads := 0
	clock := func() int64 { reads++; return t0 + int64(reads)*int64(time.Hour) } // an hour per read
	b, err := s.Backend(BackendOptions{Operator: "op", Range: KeyGroupRange{0, 128}, Clock: clock,
		TTL: ttlFor("n", time.Minute, OnReadAndWrite, NeverReturnExpired)})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	mustKey(t, b, "k")
	mustPut(t, b, "n", "v")
	wantGet(t, b, "n", ptr("v")) // an hour later per read, it would be gone
	mustPut(t, b, "other", "v")
	wantGet(t, b, "n", ptr("v"))
	if reads != 1 {
		t.Fatalf("%d clock reads in one record, want 1", reads)
	}
	mustKey(t, b, "k2")
	mustPut(t, b, "other", "v")
	if reads != 1 {
		t.Fatalf("a record without TTL'd state read the clock")
	}
}
