package state

import (
	"errors"
	"fmt"
	"maps"
	"testing"
)

// readKey returns ReadKey's entries as name -> value.
func readKey(t *testing.T, b *Backend, key string) map[string]string {
	t.Helper()
	return readKeyState(t, b, key, "")
}

// readKeyState is readKey for the entries of state want only.
func readKeyState(t *testing.T, b *Backend, key, want string) map[string]string {
	t.Helper()
	entries, err := b.ReadKey([]byte(key), want)
	if err != nil {
		t.Fatalf("ReadKey(%q): %v", key, err)
	}
	got := map[string]string{}
	for _, e := range entries {
		got[string(e.Name)] = string(e.Value.Data)
	}
	return got
}

// ReadKey sees what the guest would: flushed values, writes and deletes
// since the flush (in the cache), and entries evicted since (in the spill).
func TestReadKeySeesCacheSpillAndStore(t *testing.T) {
	s := openStore(t)
	b := fullBackend(t, s, "risk", 4)
	mustKey(t, b, "acct-1")
	mustPut(t, b, "total", "100")
	mustPut(t, b, "gone", "x")
	mustPut(t, b, "kept", "k")
	flushCommit(t, s, b)
	mustKey(t, b, "acct-1")
	mustPut(t, b, "total", "250") // newer than the store
	mustDelete(t, b, "gone")      // deleted since the flush
	mustPut(t, b, "fresh", "f")   // never flushed
	// Other keys' writes push acct-1's entries out of the 4-entry cache
	// into the spill batch.
	for i := range 8 {
		mustKey(t, b, fmt.Sprintf("other-%d", i))
		mustPut(t, b, "total", "1")
	}
	if b.spill == nil || b.cache.get(appendGroupKey(nil, KeyGroup([]byte("acct-1"), DefaultMaxParallelism), []byte("fresh"), []byte("acct-1"))) != nil {
		t.Fatal("setup: acct-1's fresh entry was not evicted into the spill")
	}
	want := map[string]string{"total": "250", "kept": "k", "fresh": "f"}
	if got := readKey(t, b, "acct-1"); !maps.Equal(got, want) {
		t.Errorf("ReadKey(acct-1) = %q, want %q", got, want)
	}
	if got := readKey(t, b, "acct-404"); len(got) != 0 {
		t.Errorf("ReadKey(acct-404) = %q, want nothing", got)
	}
}

// A query must not change the backend: it caches nothing and reads no
// entry into the cache (no eviction, no dirty entry, no stats).
func TestReadKeyChangesNothing(t *testing.T) {
	s := openStore(t)
	b := fullBackend(t, s, "risk", 0)
	mustKey(t, b, "acct-1")
	mustPut(t, b, "total", "100")
	flushCommit(t, s, b)
	before, cached := b.Stats(), b.cache.len()
	readKey(t, b, "acct-1")
	readKey(t, b, "acct-2")
	if after := b.Stats(); after != before || b.cache.len() != cached {
		t.Errorf("ReadKey changed the backend: stats %+v -> %+v, cache %d -> %d entries", before, after, cached, b.cache.len())
	}
	if n := flushCommit(t, s, b); n != 0 {
		t.Errorf("flush after ReadKey wrote %d keys, want 0", n)
	}
}

func TestReadKeyRefusesInsideABatchAndOtherTasksKeys(t *testing.T) {
	s := openStore(t)
	b, err := s.Backend(BackendOptions{Operator: "risk", Range: KeyGroupRange{0, 1}, MaxParallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var own, other string
	for i := 0; own == "" || other == ""; i++ {
		k := fmt.Sprintf("acct-%d", i)
		if KeyGroup([]byte(k), 2) == 0 {
			own = k
		} else {
			other = k
		}
	}
	if _, err := b.ReadKey([]byte(other), ""); !errors.Is(err, ErrKeyOutOfRange) {
		t.Errorf("ReadKey of another task's key: %v, want ErrKeyOutOfRange", err)
	}
	b.BeginBatch()
	if _, err := b.ReadKey([]byte(own), ""); !errors.Is(err, ErrInBatch) {
		t.Errorf("ReadKey inside a batch: %v, want ErrInBatch", err)
	}
	b.CommitBatch()
}
