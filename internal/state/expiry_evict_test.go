package state

import (
	"fmt"
	"testing"
	"time"
)

// Expiries survive eviction: an evicted value read back through the spill
// keeps its expiry, a refreshed evicted value keeps the refresh, and the
// flush turns the spilled values that expired into deletes.
func TestTTLEvictionAndSpill(t *testing.T) {
	s, clk := openStore(t), newClock()
	b := ttlBackend(t, s, 2, clk, ttlFor("n", 10*time.Second, OnReadAndWrite, NeverReturnExpired))
	for i := range 10 {
		record(t, b, clk, 0, fmt.Sprint("k", i))
		mustPut(t, b, "n", "v")
	}
	if st := b.Stats(); st.Spilled == 0 {
		t.Fatalf("nothing spilled: %+v", st)
	}
	record(t, b, clk, 5*time.Second, "k0")
	wantGet(t, b, "n", ptr("v")) // read back through the spill, refreshed to 15 s
	for i := 1; i < 10; i++ {    // push k0 out again
		record(t, b, clk, 5*time.Second, fmt.Sprint("other", i))
		wantGet(t, b, "n", nil)
	}
	clk.set(12 * time.Second)
	flushCommit(t, s, b)
	if got := rawCommitted(t, s, "op"); len(got) != 1 || got["n/k0"].ExpiresAt != at(15*time.Second) {
		t.Fatalf("store after the flush: %v, want only n/k0 expiring at t0+15s", got)
	}
	if st := b.Stats(); st.ExpiredInFlush != 9 {
		t.Fatalf("%d expired in flush, want 9", st.ExpiredInFlush)
	}
}

// A spilled value that expired is deleted by the flush, unless the key was
// written again since its eviction (the new write wins), and together with
// a clean cached copy (the cache keeps matching the store, so even
// ReturnExpiredIfNotCleaned stops returning it). The cache holds one entry,
// so each new key evicts the previous one.
func TestTTLFlushOfSpilledKeysStillCached(t *testing.T) {
	s, clk := openStore(t), newClock()
	b := ttlBackend(t, s, 1, clk, ttlFor("n", 10*time.Second, OnCreateAndWrite, ReturnExpiredIfNotCleaned))
	put := func(d time.Duration, key, v string) {
		record(t, b, clk, d, key)
		mustPut(t, b, "n", v)
	}
	put(0, "rewritten", "v")
	put(0, "filler", "v")
	put(11*time.Second, "rewritten", "new") // cached, dirty, expires at 21 s
	clk.set(12 * time.Second)
	flushCommit(t, s, b)
	if got := rawCommitted(t, s, "op"); len(got) != 1 || string(got["n/rewritten"].Data) != "new" {
		t.Fatalf("store = %v, want only n/rewritten = new", got)
	}
	if st := b.Stats(); st.ExpiredInFlush != 1 { // filler, not rewritten
		t.Fatalf("%d expired in flush, want 1", st.ExpiredInFlush)
	}

	put(20*time.Second, "reloaded", "v")
	put(20*time.Second, "filler", "v")
	record(t, b, clk, 25*time.Second, "reloaded")
	wantGet(t, b, "n", ptr("v")) // cached again, clean, read from the spill
	clk.set(31 * time.Second)
	flushCommit(t, s, b)
	if st := b.Stats(); st.ExpiredInFlush != 3 {
		t.Fatalf("%d expired in flush, want 3", st.ExpiredInFlush)
	}
	record(t, b, clk, 31*time.Second, "reloaded")
	wantGet(t, b, "n", nil)
}
