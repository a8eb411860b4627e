package state

import (
	"errors"
	"testing"
	"time"
)

// Adding a TTL to existing state: a value written without expiry is given
// one (now + Duration) when first seen, by a Get or by the sweep, so old
// state is bounded too.
func TestTTLAddedToExistingState(t *testing.T) {
	s, clk := openStore(t), newClock()
	b := ttlBackend(t, s, 0, clk, nil)
	for _, k := range []string{"read", "dormant"} {
		record(t, b, clk, 0, k)
		mustPut(t, b, "n", "v")
	}
	flushCommit(t, s, b)
	b.Close()

	b = ttlBackend(t, s, 0, clk, ttlFor("n", time.Minute, OnCreateAndWrite, NeverReturnExpired))
	record(t, b, clk, 10*time.Second, "read")
	wantGet(t, b, "n", ptr("v"))
	clk.set(20 * time.Second)
	if _, err := b.Sweep(100); err != nil {
		t.Fatal(err)
	}
	if st := b.Stats(); st.Adopted != 2 {
		t.Fatalf("%d values given an expiry, want 2", st.Adopted)
	}
	flushCommit(t, s, b)
	wantExpiry(t, s, "n/read", 70*time.Second)
	wantExpiry(t, s, "n/dormant", 80*time.Second)
	clk.set(90 * time.Second)
	if n, err := b.Sweep(100); err != nil || n != 2 {
		t.Fatalf("sweep at 90 s: %d, %v; want 2", n, err)
	}
	flushCommit(t, s, b)
	if c := committed(t, s, "op"); len(c) != 0 {
		t.Fatalf("store still holds %v", c)
	}
}

// Removing a TTL: stored expiries are honoured until the value is written
// again, and a new write never expires.
func TestTTLRemovedFromExistingState(t *testing.T) {
	s, clk := openStore(t), newClock()
	b := ttlBackend(t, s, 0, clk, ttlFor("n", time.Minute, OnCreateAndWrite, NeverReturnExpired))
	for _, k := range []string{"kept", "rewritten"} {
		record(t, b, clk, 0, k)
		mustPut(t, b, "n", "v")
	}
	flushCommit(t, s, b)
	b.Close()

	b = ttlBackend(t, s, 0, clk, nil)
	record(t, b, clk, 30*time.Second, "rewritten")
	mustPut(t, b, "n", "v")
	record(t, b, clk, 61*time.Second, "kept")
	wantGet(t, b, "n", nil)
	record(t, b, clk, 61*time.Second, "rewritten")
	wantGet(t, b, "n", ptr("v"))
	flushCommit(t, s, b)
	wantExpiry(t, s, "n/rewritten", -1)
}

// Changing a TTL's duration applies to writes after the change; stored
// expiries stand.
func TestTTLChangedDuration(t *testing.T) {
	s, clk := openStore(t), newClock()
	b := ttlBackend(t, s, 0, clk, ttlFor("n", time.Minute, OnCreateAndWrite, NeverReturnExpired))
	record(t, b, clk, 0, "k")
	mustPut(t, b, "n", "v")
	flushCommit(t, s, b)
	b.Close()
	b = ttlBackend(t, s, 0, clk, ttlFor("n", 2*time.Minute, OnCreateAndWrite, NeverReturnExpired))
	record(t, b, clk, 61*time.Second, "k")
	wantGet(t, b, "n", nil)
	mustPut(t, b, "n", "v")
	flushCommit(t, s, b)
	wantExpiry(t, s, "n/k", 181*time.Second)
}

// Map-state entries (name 0x00 mapKey) follow the TTL of the map's name.
func TestTTLAppliesToMapEntries(t *testing.T) {
	s, clk := openStore(t), newClock()
	b := ttlBackend(t, s, 0, clk, ttlFor("m", 10*time.Second, OnCreateAndWrite, NeverReturnExpired))
	record(t, b, clk, 0, "k")
	for _, name := range []string{"m\x00a", "m\x00b", "m", "mm\x00a", "other"} {
		mustPut(t, b, name, "v")
	}
	record(t, b, clk, 11*time.Second, "k")
	for name, want := range map[string]*string{"m\x00a": nil, "m\x00b": nil, "m": nil, "mm\x00a": ptr("v"), "other": ptr("v")} {
		wantGet(t, b, name, want)
	}
}

// A Delete makes a value absent for good; a Put after it is a fresh value
// with a fresh expiry.
func TestTTLDeleteThenPut(t *testing.T) {
	s, clk := openStore(t), newClock()
	b := ttlBackend(t, s, 0, clk, ttlFor("n", 10*time.Second, OnCreateAndWrite, ReturnExpiredIfNotCleaned))
	record(t, b, clk, 0, "k")
	mustPut(t, b, "n", "v")
	mustDelete(t, b, "n")
	record(t, b, clk, 20*time.Second, "k")
	wantGet(t, b, "n", nil)
	mustPut(t, b, "n", "v")
	flushCommit(t, s, b)
	wantExpiry(t, s, "n/k", 30*time.Second)
}

// TestSetTTLBeforeTheFirstRecord: SetTTL replaces the TTLs of a fresh
// backend (the values written then expire by the new TTL) and is refused
// once an entry is cached.
func TestSetTTLBeforeTheFirstRecord(t *testing.T) {
	clk := newClock()
	b := ttlBackend(t, openStore(t), 0, clk, nil)
	if err := b.SetTTL(ttlFor("seen", time.Minute, OnCreateAndWrite, NeverReturnExpired)); err != nil {
		t.Fatal(err)
	}
	if !dedup(t, b, clk, 0, "42") || !dedup(t, b, clk, 65*time.Second, "42") {
		t.Fatal("id 42 at t=65 s was caught: the TTL set by SetTTL (60 s) was not applied")
	}
	if err := b.SetTTL(nil); !errors.Is(err, ErrInvalidOptions) {
		t.Fatalf("SetTTL with a cached entry: %v, want ErrInvalidOptions", err)
	}
}

// TestSetTTLValidates: an invalid TTL is refused like in BackendOptions.
func TestSetTTLValidates(t *testing.T) {
	b := ttlBackend(t, openStore(t), 0, newClock(), nil)
	if err := b.SetTTL(map[string]TTL{"x": {}}); err == nil {
		t.Fatal("SetTTL accepted a TTL of zero duration")
	}
}
