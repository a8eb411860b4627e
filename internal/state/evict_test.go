package state

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
)

// With a cache far smaller than the working set, every value stays
// correct, and evicted writes do not reach the store before a flush: the
// store only ever holds a consistent cut.
func TestEvictionKeepsCorrectness(t *testing.T) {
	s := openStore(t)
	b := fullBackend(t, s, "op", 4)
	const keys = 50
	for i := range keys {
		mustKey(t, b, fmt.Sprint(i))
		mustPut(t, b, "n", fmt.Sprint("v", i))
		if i%3 == 0 {
			mustDelete(t, b, "n")
		}
	}
	st := b.Stats()
	if st.Entries > 4 || st.Evictions == 0 || st.Spilled == 0 || st.SpillBytes == 0 {
		t.Fatalf("stats %+v: want ≤4 entries and evictions into the spill", st)
	}
	if got := committed(t, s, "op"); len(got) != 0 {
		t.Fatalf("eviction wrote to the store before a flush: %d entries", len(got))
	}
	check := func() {
		t.Helper()
		for i := range keys {
			mustKey(t, b, fmt.Sprint(i))
			if i%3 == 0 {
				wantGet(t, b, "n", nil)
			} else {
				wantGet(t, b, "n", ptr(fmt.Sprint("v", i)))
			}
		}
	}
	check()
	flushCommit(t, s, b)
	if st := b.Stats(); st.SpillBytes != 0 || st.Dirty != 0 {
		t.Fatalf("after flush: %+v", st)
	}
	if got := committed(t, s, "op"); len(got) != keys-(keys+2)/3 {
		t.Fatalf("store holds %d entries after flush, want %d", len(got), keys-(keys+2)/3)
	}
	check()
}

// A key evicted, then written again before the flush, ends with its last
// value: the spill is applied before the cached writes.
func TestSpillThenRewriteKeepsLastValue(t *testing.T) {
	s := openStore(t)
	b := fullBackend(t, s, "op", 1)
	mustKey(t, b, "k")
	mustPut(t, b, "n", "old")
	mustKey(t, b, "other")
	mustPut(t, b, "n", "x") // evicts k/n into the spill
	mustKey(t, b, "k")
	wantGet(t, b, "n", ptr("old")) // read back through the spill
	mustPut(t, b, "n", "new")
	flushCommit(t, s, b)
	if got := committed(t, s, "op"); got["n/k"] != "new" {
		t.Fatalf("store has %q, want new", got["n/k"])
	}
}

// The cache may outgrow its capacity inside a batch (the undo log points at
// the entries) and shrinks back when the batch ends.
func TestNoEvictionInsideBatch(t *testing.T) {
	s := openStore(t)
	b := fullBackend(t, s, "op", 2)
	b.BeginBatch()
	for i := range 10 {
		mustKey(t, b, fmt.Sprint(i))
		mustPut(t, b, "n", "v")
	}
	if st := b.Stats(); st.Entries != 10 || st.Evictions != 0 {
		t.Fatalf("inside the batch: %+v", st)
	}
	b.RollbackBatch()
	for i := range 10 {
		mustKey(t, b, fmt.Sprint(i))
		wantGet(t, b, "n", nil)
	}
	if st := b.Stats(); st.Entries > 2 {
		t.Fatalf("after the batch: %d entries, capacity 2", st.Entries)
	}
}

// Hot keys survive sweeps: second chance spares entries used since the
// last sweep, so a small hot set is not re-read for every cold key.
func TestHotKeysSurviveEviction(t *testing.T) {
	s := openStore(t)
	b := fullBackend(t, s, "op", 64)
	for i := range 10_000 {
		mustKey(t, b, "hot")
		if _, _, err := b.Get([]byte("n")); err != nil {
			t.Fatal(err)
		}
		mustKey(t, b, fmt.Sprint("cold-", i))
		if _, _, err := b.Get([]byte("n")); err != nil {
			t.Fatal(err)
		}
	}
	// 10,000 cold misses and the hot key's first read are unavoidable; the
	// hot key is re-read only when a sweep's second pass takes it, which a
	// cache full of unused cold entries almost never needs. Evicting without
	// a second chance re-reads it ~240 times here.
	if st := b.Stats(); st.PebbleReads > 10_000+50 {
		t.Fatalf("%d store reads for 10,000 cold keys: the hot key was evicted too often", st.PebbleReads)
	}
}

// model is the expected state: what the store holds (the last flushed
// cut) and what the backend must show.
type model struct {
	store, live, atBegin map[string]string
}

// TestBackendAgainstModel runs random operations (writes, reads, batches
// committed and rolled back, flushes, crashes that lose the unflushed
// writes) with tiny caches, and checks every read and every cut.
func TestBackendAgainstModel(t *testing.T) {
	for seed := range uint64(20) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			runModel(t, rand.New(rand.NewPCG(seed, 7)), 1+int(seed%5))
		})
	}
}

func runModel(t *testing.T, rng *rand.Rand, capacity int) {
	s := openStore(t)
	b := fullBackend(t, s, "op", capacity)
	m := model{store: map[string]string{}, live: map[string]string{}}
	for step := range 3000 {
		key, name := fmt.Sprint("k", rng.IntN(12)), fmt.Sprint("n", rng.IntN(3))
		id := name + "/" + key
		mustKey(t, b, key)
		switch op := rng.IntN(100); {
		case op < 35:
			v, ok := m.live[id]
			if ok {
				wantGet(t, b, name, &v)
			} else {
				wantGet(t, b, name, nil)
			}
		case op < 65:
			v := fmt.Sprint("v", step)
			mustPut(t, b, name, v)
			m.live[id] = v
		case op < 75:
			mustDelete(t, b, name)
			delete(m.live, id)
		case op < 85:
			if b.InBatch() {
				b.CommitBatch()
			} else {
				b.BeginBatch()
				m.atBegin = maps.Clone(m.live)
			}
		case op < 92:
			if b.InBatch() {
				b.RollbackBatch()
				m.live = m.atBegin
			}
		case op < 97:
			if !b.InBatch() {
				flushCommit(t, s, b)
				m.store = maps.Clone(m.live)
				if got := committed(t, s, "op"); !maps.Equal(got, m.store) {
					t.Fatalf("step %d: store %v, want %v", step, got, m.store)
				}
			}
		default:
			if !b.InBatch() { // crash: unflushed writes are gone
				if got := committed(t, s, "op"); !maps.Equal(got, m.store) {
					t.Fatalf("step %d: store changed without a flush: %v, want %v", step, got, m.store)
				}
				b.Close()
				b = fullBackend(t, s, "op", capacity)
				m.live = maps.Clone(m.store)
			}
		}
	}
}
