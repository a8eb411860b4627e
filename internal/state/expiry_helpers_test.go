package state

import (
	"testing"
	"time"
)

// t0 is "t=0" of the TTL tests: a realistic Unix time, so that no time in
// them is 0, which means "no event time".
const t0 = int64(1_700_000_000) * int64(time.Second)

// at returns the Unix time t0 + d.
func at(d time.Duration) int64 { return t0 + int64(d) }

// fakeClock is the injectable processing clock: tests move it, never sleep.
type fakeClock struct{ now int64 }

func newClock() *fakeClock               { return &fakeClock{now: t0} }
func (c *fakeClock) read() int64         { return c.now }
func (c *fakeClock) set(d time.Duration) { c.now = at(d) }

// ttlBackend returns a backend of operator "op" owning every key group, on
// clk, with the given TTLs.
func ttlBackend(t testing.TB, s *Store, cacheEntries int, clk *fakeClock, ttl map[string]TTL) *Backend {
	t.Helper()
	b, err := s.Backend(BackendOptions{Operator: "op", Range: KeyGroupRange{0, DefaultMaxParallelism},
		CacheEntries: cacheEntries, TTL: ttl, Clock: clk.read})
	if err != nil {
		t.Fatalf("Backend: %v", err)
	}
	t.Cleanup(b.Close)
	return b
}

// record moves the clock to t0+d and makes key current: the clock is read
// once per record, so it must move before the record starts.
func record(t testing.TB, b *Backend, clk *fakeClock, d time.Duration, key string) {
	t.Helper()
	clk.set(d)
	mustKey(t, b, key)
}

// eventRecord makes key current with event time t0+d.
func eventRecord(t testing.TB, b *Backend, d time.Duration, key string) {
	t.Helper()
	if err := b.SetCurrentRecord([]byte(key), at(d)); err != nil {
		t.Fatalf("SetCurrentRecord(%q): %v", key, err)
	}
}

// rawCommitted returns the decoded committed values of op, expiry included,
// as "name/key" -> Value.
func rawCommitted(t testing.TB, s *Store, op string) map[string]Value {
	t.Helper()
	got := map[string]Value{}
	err := s.ScanValues(op, KeyGroupRange{0, MaxMaxParallelism}, func(_ int, name, key []byte, v Value) error {
		v.Data = append([]byte{}, v.Data...)
		got[string(name)+"/"+string(key)] = v
		return nil
	})
	if err != nil {
		t.Fatalf("ScanValues: %v", err)
	}
	return got
}

// wantExpiry checks the committed expiry of name/key: d < 0 for none.
func wantExpiry(t testing.TB, s *Store, id string, d time.Duration) {
	t.Helper()
	v, ok := rawCommitted(t, s, "op")[id]
	switch {
	case !ok:
		t.Fatalf("%s is not in the store", id)
	case d < 0 && v.HasExpiry:
		t.Fatalf("%s expires at t0%+v, want no expiry", id, time.Duration(v.ExpiresAt-t0))
	case d >= 0 && (!v.HasExpiry || v.ExpiresAt != at(d)):
		t.Fatalf("%s has expiry %t at t0%+v, want t0+%v", id, v.HasExpiry, time.Duration(v.ExpiresAt-t0), d)
	}
}

func ttlFor(name string, d time.Duration, u UpdateType, v Visibility) map[string]TTL {
	return map[string]TTL{name: {Duration: d, Update: u, Visibility: v}}
}

// dedup is the guest of the traced case: it processes a record
// unless its id was seen, remembering the id in state "seen".
func dedup(t testing.TB, b *Backend, clk *fakeClock, d time.Duration, id string) (processed bool) {
	t.Helper()
	record(t, b, clk, d, id)
	if _, seen, err := b.Get([]byte("seen")); err != nil || seen {
		if err != nil {
			t.Fatal(err)
		}
		return false
	}
	mustPut(t, b, "seen", "1")
	return true
}

func presence(t testing.TB, b *Backend, name string) string {
	t.Helper()
	v, found, err := b.Get([]byte(name))
	if err != nil {
		t.Fatal(err)
	}
	if found && string(v) != "v" {
		t.Fatalf("Get(%q) = %q", name, v)
	}
	if found {
		return "P"
	}
	return "A"
}
