package state

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

func TestGetAfterPutAndDelete(t *testing.T) {
	s := openStore(t)
	b := fullBackend(t, s, "op", 0)
	mustKey(t, b, "alice")
	wantGet(t, b, "count", nil)
	mustPut(t, b, "count", "1")
	wantGet(t, b, "count", ptr("1"))
	mustPut(t, b, "count", "22")
	wantGet(t, b, "count", ptr("22"))
	mustPut(t, b, "empty", "")
	wantGet(t, b, "empty", ptr(""))
	mustDelete(t, b, "count")
	wantGet(t, b, "count", nil)
	if got := committed(t, s, "op"); len(got) != 0 {
		t.Fatalf("writes reached the store before a flush: %v", got)
	}
}

// State is scoped to the current key: the same name under two keys is two
// values.
func TestStateIsScopedToKey(t *testing.T) {
	s := openStore(t)
	b := fullBackend(t, s, "op", 0)
	mustKey(t, b, "alice")
	mustPut(t, b, "n", "a")
	mustKey(t, b, "bob")
	wantGet(t, b, "n", nil)
	mustPut(t, b, "n", "b")
	mustKey(t, b, "alice")
	wantGet(t, b, "n", ptr("a"))
}

// Different operators never see each other's state, even with the same
// names and keys (and one operator name a prefix of the other).
func TestStateIsScopedToOperator(t *testing.T) {
	s := openStore(t)
	a, ab := fullBackend(t, s, "a", 0), fullBackend(t, s, "ab", 0)
	mustKey(t, a, "k")
	mustPut(t, a, "n", "from a")
	flushCommit(t, s, a)
	mustKey(t, ab, "k")
	wantGet(t, ab, "n", nil)
	if got := committed(t, s, "ab"); len(got) != 0 {
		t.Fatalf("operator ab sees %v", got)
	}
}

func TestPutCopiesValue(t *testing.T) {
	s := openStore(t)
	b := fullBackend(t, s, "op", 0)
	mustKey(t, b, "k")
	v := []byte("abc")
	if err := b.Put([]byte("n"), v); err != nil {
		t.Fatal(err)
	}
	v[0] = 'X'
	wantGet(t, b, "n", ptr("abc"))
}

// Absent answers are cached: a second Get of a missing value does not read
// the store again, and neither do hits.
func TestAbsentIsCached(t *testing.T) {
	s := openStore(t)
	b := fullBackend(t, s, "op", 0)
	mustKey(t, b, "k")
	wantGet(t, b, "n", nil)
	wantGet(t, b, "n", nil)
	mustPut(t, b, "m", "v")
	wantGet(t, b, "m", ptr("v"))
	st := b.Stats()
	if st.PebbleReads != 1 || st.Misses != 1 || st.Hits != 2 {
		t.Fatalf("stats %+v, want 1 store read, 1 miss, 2 hits", st)
	}
	if st.Entries != 2 || st.Dirty != 1 {
		t.Fatalf("stats %+v, want 2 entries, 1 dirty", st)
	}
	// Deleting a value known to be absent writes nothing.
	mustDelete(t, b, "n")
	if st := b.Stats(); st.Dirty != 1 {
		t.Fatalf("Delete of an absent value made it dirty: %+v", st)
	}
}

// A value in the store is read once, then served from the cache.
func TestReadThroughFromStore(t *testing.T) {
	s := openStore(t)
	w := fullBackend(t, s, "op", 0)
	mustKey(t, w, "k")
	mustPut(t, w, "n", "stored")
	flushCommit(t, s, w)
	w.Close()

	r := fullBackend(t, s, "op", 0)
	mustKey(t, r, "k")
	wantGet(t, r, "n", ptr("stored"))
	wantGet(t, r, "n", ptr("stored"))
	if st := r.Stats(); st.PebbleReads != 1 || st.Hits != 1 {
		t.Fatalf("stats %+v, want 1 store read then 1 hit", st)
	}
}

func TestOutOfRangeKeyRejected(t *testing.T) {
	s := openStore(t)
	r := KeyGroupRange{0, 64}
	b, err := s.Backend(BackendOptions{Operator: "op", Range: r})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var in, out []byte
	for i := 0; in == nil || out == nil; i++ {
		k := fmt.Appendf(nil, "key-%d", i)
		if r.Contains(KeyGroup(k, DefaultMaxParallelism)) {
			in = k
		} else {
			out = k
		}
	}
	if err := b.SetCurrentKey(in); err != nil {
		t.Fatalf("in-range key: %v", err)
	}
	if err := b.SetCurrentKey(out); !errors.Is(err, ErrKeyOutOfRange) {
		t.Fatalf("out-of-range key: %v, want ErrKeyOutOfRange", err)
	}
	// A refused key leaves no current key: the previous one must not be
	// written in its place.
	if err := b.Put([]byte("n"), []byte("v")); !errors.Is(err, ErrNoCurrentKey) {
		t.Fatalf("Put after a refused key: %v, want ErrNoCurrentKey", err)
	}
}

func TestCallsWithoutCurrentKey(t *testing.T) {
	s := openStore(t)
	b := fullBackend(t, s, "op", 0)
	if _, _, err := b.Get([]byte("n")); !errors.Is(err, ErrNoCurrentKey) {
		t.Errorf("Get before SetCurrentKey: %v", err)
	}
	mustKey(t, b, "k")
	b.ClearCurrentKey()
	if err := b.Put([]byte("n"), nil); !errors.Is(err, ErrNoCurrentKey) {
		t.Errorf("Put after ClearCurrentKey: %v", err)
	}
	if err := b.Delete([]byte("n")); !errors.Is(err, ErrNoCurrentKey) {
		t.Errorf("Delete after ClearCurrentKey: %v", err)
	}
}

func TestArgumentLimits(t *testing.T) {
	s := openStore(t)
	b, err := s.Backend(BackendOptions{Operator: "op", Range: KeyGroupRange{0, 128}, MaxValueLen: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.SetCurrentKey(make([]byte, MaxKeyLen+1)); !errors.Is(err, ErrKeyTooLarge) {
		t.Errorf("huge key: %v", err)
	}
	mustKey(t, b, "k")
	if err := b.Put([]byte("n"), make([]byte, 9)); !errors.Is(err, ErrValueTooLarge) {
		t.Errorf("9-byte value over a limit of 8: %v", err)
	}
	if err := b.Put([]byte("n"), make([]byte, 8)); err != nil {
		t.Errorf("8-byte value: %v", err)
	}
	for _, name := range [][]byte{nil, {}, bytes.Repeat([]byte("n"), MaxStateNameLen+1)} {
		if _, _, err := b.Get(name); !errors.Is(err, ErrInvalidName) {
			t.Errorf("Get with a %d-byte name: %v", len(name), err)
		}
		if err := b.Put(name, nil); !errors.Is(err, ErrInvalidName) {
			t.Errorf("Put with a %d-byte name: %v", len(name), err)
		}
	}
	if err := b.Put(bytes.Repeat([]byte("n"), MaxStateNameLen), nil); err != nil {
		t.Errorf("Put with a %d-byte name: %v", MaxStateNameLen, err)
	}
}

// A closed backend refuses every call, even with a current key set before
// Close.
func TestClosedBackendRefuses(t *testing.T) {
	s := openStore(t)
	b := fullBackend(t, s, "op", 0)
	mustKey(t, b, "k")
	mustPut(t, b, "n", "v")
	b.Close()
	if _, _, err := b.Get([]byte("n")); !errors.Is(err, ErrClosed) {
		t.Errorf("Get after Close: %v", err)
	}
	if err := b.Put([]byte("n"), nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Put after Close: %v", err)
	}
	if err := b.Delete([]byte("n")); !errors.Is(err, ErrClosed) {
		t.Errorf("Delete after Close: %v", err)
	}
}

func TestOverlappingBackendsRefused(t *testing.T) {
	s := openStore(t)
	a, err := s.Backend(BackendOptions{Operator: "op", Range: RangeForTask(0, 2, 128)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Backend(BackendOptions{Operator: "op", Range: KeyGroupRange{60, 70}}); !errors.Is(err, ErrRangeInUse) {
		t.Fatalf("overlapping backend: %v, want ErrRangeInUse", err)
	}
	other, err := s.Backend(BackendOptions{Operator: "op", Range: RangeForTask(1, 2, 128)})
	if err != nil {
		t.Fatalf("adjacent range: %v", err)
	}
	defer other.Close()
	a.Close()
	a.Close() // idempotent
	again, err := s.Backend(BackendOptions{Operator: "op", Range: KeyGroupRange{60, 64}})
	if err != nil {
		t.Fatalf("range freed by Close: %v", err)
	}
	again.Close()
	if err := a.SetCurrentKey([]byte("k")); !errors.Is(err, ErrClosed) {
		t.Errorf("SetCurrentKey after Close: %v", err)
	}
	pb := s.NewBatch()
	defer pb.Close()
	if _, err := a.FlushTo(pb); !errors.Is(err, ErrClosed) {
		t.Errorf("FlushTo after Close: %v", err)
	}
}

// Hits on cached entries do not allocate: this path runs per record.
func TestHotPathDoesNotAllocate(t *testing.T) {
	s := openStore(t)
	b := fullBackend(t, s, "op", 0)
	key, name, val := []byte("user-42"), []byte("count"), bytes.Repeat([]byte("v"), 100)
	mustKey(t, b, "user-42")
	mustPut(t, b, "count", string(val))
	allocs := testing.AllocsPerRun(1000, func() {
		b.BeginBatch()
		if err := b.SetCurrentKey(key); err != nil {
			t.Fatal(err)
		}
		if _, _, err := b.Get(name); err != nil {
			t.Fatal(err)
		}
		if err := b.Put(name, val); err != nil {
			t.Fatal(err)
		}
		if err := b.Delete(name); err != nil {
			t.Fatal(err)
		}
		if err := b.Put(name, val); err != nil {
			t.Fatal(err)
		}
		b.CommitBatch()
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per record on cached entries, want 0", allocs)
	}
}
