package state

import (
	"maps"
	"testing"
)

// A rolled-back batch leaves every kind of pre-image as it was: a cached
// value, a value only in the store, a cached absence, a value never looked
// at, and a value the batch wrote several times.
func TestRollbackRestoresPreviousValues(t *testing.T) {
	s := openStore(t)
	b := fullBackend(t, s, "op", 0)
	mustKey(t, b, "k")
	mustPut(t, b, "stored", "in pebble")
	mustPut(t, b, "deleted-in-store", "old")
	flushCommit(t, s, b)
	b.Close()

	b = fullBackend(t, s, "op", 0)
	mustKey(t, b, "k")
	mustPut(t, b, "cached", "before")
	wantGet(t, b, "absent", nil)

	b.BeginBatch()
	mustPut(t, b, "cached", "during-1")
	mustPut(t, b, "cached", "during-2")
	mustPut(t, b, "absent", "during")
	mustPut(t, b, "stored", "during")    // never read: only in Pebble
	mustDelete(t, b, "deleted-in-store") // delete of a value only in Pebble
	mustPut(t, b, "new", "during")       // never seen anywhere
	mustKey(t, b, "other")               // writes under a second key too
	mustPut(t, b, "cached", "other-during")
	b.RollbackBatch()

	mustKey(t, b, "k")
	wantGet(t, b, "cached", ptr("before"))
	wantGet(t, b, "absent", nil)
	wantGet(t, b, "stored", ptr("in pebble"))
	wantGet(t, b, "deleted-in-store", ptr("old"))
	wantGet(t, b, "new", nil)
	mustKey(t, b, "other")
	wantGet(t, b, "cached", nil)

	// Only the write made before the batch is flushed.
	if n := flushCommit(t, s, b); n != 1 {
		t.Fatalf("flushed %d keys after the rollback, want 1", n)
	}
	want := map[string]string{"stored/k": "in pebble", "deleted-in-store/k": "old", "cached/k": "before"}
	if got := committed(t, s, "op"); !maps.Equal(got, want) {
		t.Fatalf("store after rollback and flush = %v, want %v", got, want)
	}
}

// A dirty value written before the batch stays dirty after a rollback.
func TestRollbackKeepsEarlierDirtyWrites(t *testing.T) {
	s := openStore(t)
	b := fullBackend(t, s, "op", 0)
	mustKey(t, b, "k")
	mustPut(t, b, "n", "1")
	mustDelete(t, b, "gone")
	b.BeginBatch()
	mustPut(t, b, "n", "2")
	mustPut(t, b, "gone", "back")
	b.RollbackBatch()
	if st := b.Stats(); st.Dirty != 2 {
		t.Fatalf("dirty = %d after rollback, want 2", st.Dirty)
	}
	flushCommit(t, s, b)
	if got, want := committed(t, s, "op"), map[string]string{"n/k": "1"}; !maps.Equal(got, want) {
		t.Fatalf("store = %v, want %v", got, want)
	}
}

func TestCommitBatchKeepsWrites(t *testing.T) {
	s := openStore(t)
	b := fullBackend(t, s, "op", 0)
	mustKey(t, b, "k")
	b.BeginBatch()
	mustPut(t, b, "n", "1")
	b.CommitBatch()
	b.RollbackBatch() // no batch open: nothing to undo
	wantGet(t, b, "n", ptr("1"))

	// A later batch that rolls back returns to the committed batch's value.
	b.BeginBatch()
	mustPut(t, b, "n", "2")
	b.RollbackBatch()
	wantGet(t, b, "n", ptr("1"))
}

// Each batch saves its own pre-images: a write in batch 2 to an entry
// already saved in batch 1 is saved again.
func TestUndoIsPerBatch(t *testing.T) {
	s := openStore(t)
	b := fullBackend(t, s, "op", 0)
	mustKey(t, b, "k")
	for _, v := range []string{"a", "b", "c"} {
		b.BeginBatch()
		mustPut(t, b, "n", v)
		b.CommitBatch()
		b.BeginBatch()
		mustPut(t, b, "n", "bad")
		b.RollbackBatch()
		wantGet(t, b, "n", ptr(v))
	}
}

func TestBeginBatchTwicePanics(t *testing.T) {
	s := openStore(t)
	b := fullBackend(t, s, "op", 0)
	b.BeginBatch()
	defer func() {
		if recover() == nil {
			t.Fatal("nested BeginBatch did not panic")
		}
	}()
	b.BeginBatch()
}
