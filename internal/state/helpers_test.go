package state

import (
	"errors"
	"testing"
)

// openStore opens a store with a small block cache in a fresh temp dir and
// closes it with the test.
func openStore(t testing.TB) *Store {
	t.Helper()
	return openStoreWith(t, Options{CacheSizeBytes: 8 << 20})
}

func openStoreWith(t testing.TB, o Options) *Store {
	t.Helper()
	s, err := Open(t.TempDir(), o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// fullBackend returns a backend of operator op that owns every key group.
func fullBackend(t testing.TB, s *Store, op string, cacheEntries int) *Backend {
	t.Helper()
	b, err := s.Backend(BackendOptions{Operator: op, Range: KeyGroupRange{0, DefaultMaxParallelism}, CacheEntries: cacheEntries})
	if err != nil {
		t.Fatalf("Backend: %v", err)
	}
	t.Cleanup(b.Close)
	return b
}

// flushCommit flushes b into a new batch and commits it.
func flushCommit(t testing.TB, s *Store, b *Backend) int {
	t.Helper()
	pb := s.NewBatch()
	n, err := b.FlushTo(pb)
	if err != nil {
		pb.Close()
		t.Fatalf("FlushTo: %v", err)
	}
	if err := s.Commit(pb); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	return n
}

func mustKey(t testing.TB, b *Backend, key string) {
	t.Helper()
	if err := b.SetCurrentKey([]byte(key)); err != nil {
		t.Fatalf("SetCurrentKey(%q): %v", key, err)
	}
}

func mustPut(t testing.TB, b *Backend, name, value string) {
	t.Helper()
	if err := b.Put([]byte(name), []byte(value)); err != nil {
		t.Fatalf("Put(%q): %v", name, err)
	}
}

func mustDelete(t testing.TB, b *Backend, name string) {
	t.Helper()
	if err := b.Delete([]byte(name)); err != nil {
		t.Fatalf("Delete(%q): %v", name, err)
	}
}

// wantGet checks state name of the current key: want is nil for absent.
func wantGet(t testing.TB, b *Backend, name string, want *string) {
	t.Helper()
	v, found, err := b.Get([]byte(name))
	if err != nil {
		t.Fatalf("Get(%q): %v", name, err)
	}
	switch {
	case want == nil && found:
		t.Fatalf("Get(%q) = %q, want absent", name, v)
	case want != nil && !found:
		t.Fatalf("Get(%q) absent, want %q", name, *want)
	case want != nil && string(v) != *want:
		t.Fatalf("Get(%q) = %q, want %q", name, v, *want)
	}
}

func ptr(s string) *string { return &s }

// committed returns the store's state of op as "name/key" -> value.
func committed(t testing.TB, s *Store, op string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := s.Scan(op, KeyGroupRange{0, MaxMaxParallelism}, func(kg int, name, key, value []byte) error {
		k := string(name) + "/" + string(key)
		if _, dup := got[k]; dup {
			return errors.New("duplicate entry " + k)
		}
		got[k] = string(value)
		return nil
	})
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	return got
}
