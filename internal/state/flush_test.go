package state

import (
	"errors"
	"fmt"
	"maps"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

// batchContents decodes every operation of a Pebble batch: key -> value,
// with "<deleted>" for a delete.
func batchContents(t *testing.T, pb *pebble.Batch) map[string]string {
	t.Helper()
	got := map[string]string{}
	r := pb.Reader()
	for {
		kind, k, v, ok, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return got
		}
		sk, err := DecodeStateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		id := string(sk.Name) + "/" + string(sk.Key)
		if _, dup := got[id]; dup {
			t.Fatalf("batch writes %s twice", id)
		}
		switch kind {
		case pebble.InternalKeyKindSet:
			val, err := DecodeValue(v)
			if err != nil {
				t.Fatal(err)
			}
			got[id] = string(val.Data)
		case pebble.InternalKeyKindDelete:
			got[id] = "<deleted>"
		default:
			t.Fatalf("unexpected batch operation %v", kind)
		}
	}
}

// FlushTo writes exactly the entries written since the last flush: not the
// ones only read, not the ones rolled back, each once with its last value.
func TestFlushWritesExactlyTheDirtySet(t *testing.T) {
	s := openStore(t)
	b := fullBackend(t, s, "op", 0)
	mustKey(t, b, "k1")
	mustPut(t, b, "a", "1")
	mustPut(t, b, "a", "2")
	wantGet(t, b, "read-only", nil)
	mustDelete(t, b, "d")
	mustKey(t, b, "k2")
	mustPut(t, b, "a", "3")
	b.BeginBatch()
	mustPut(t, b, "rolled-back", "x")
	b.RollbackBatch()

	pb := s.NewBatch()
	n, err := b.FlushTo(pb)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a/k1": "2", "d/k1": "<deleted>", "a/k2": "3"}
	if got := batchContents(t, pb); n != 3 || !maps.Equal(got, want) {
		t.Fatalf("FlushTo wrote %d: %v, want %v", n, got, want)
	}
	if err := s.Commit(pb); err != nil {
		t.Fatal(err)
	}
	if st := b.Stats(); st.Dirty != 0 || st.Flushed != 3 {
		t.Fatalf("after flush: %+v", st)
	}
	// Flushed entries are clean: the next flush writes only new writes.
	mustKey(t, b, "k1")
	mustPut(t, b, "a", "4")
	pb = s.NewBatch()
	defer pb.Close()
	if n, err := b.FlushTo(pb); err != nil || n != 1 {
		t.Fatalf("second flush wrote %d, %v; want 1", n, err)
	}
	if got := batchContents(t, pb); !maps.Equal(got, map[string]string{"a/k1": "4"}) {
		t.Fatalf("second flush = %v", got)
	}
}

func TestFlushInsideBatchRefused(t *testing.T) {
	s := openStore(t)
	b := fullBackend(t, s, "op", 0)
	mustKey(t, b, "k")
	b.BeginBatch()
	mustPut(t, b, "n", "v")
	pb := s.NewBatch()
	defer pb.Close()
	if _, err := b.FlushTo(pb); !errors.Is(err, ErrInBatch) {
		t.Fatalf("FlushTo in a batch: %v, want ErrInBatch", err)
	}
	if !pb.Empty() {
		t.Fatal("a refused FlushTo wrote into the batch")
	}
	b.CommitBatch()
	if n, err := b.FlushTo(pb); err != nil || n != 1 {
		t.Fatalf("FlushTo after the batch: %d, %v", n, err)
	}
}

// Persistence: put, flush with metadata in the same batch, commit, close
// the store, reopen it, and read the state back through a new backend.
func TestStatePersistsAcrossReopen(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Backend(BackendOptions{Operator: "counter", Range: KeyGroupRange{0, 128}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		mustKey(t, b, fmt.Sprintf("user-%d", i))
		mustPut(t, b, "count", fmt.Sprint(i*i))
	}
	mustKey(t, b, "user-7")
	mustDelete(t, b, "count")
	pb := s.NewBatch()
	if _, err := b.FlushTo(pb); err != nil {
		t.Fatal(err)
	}
	if err := PutMeta(pb, "source/payments", []byte("seq=100")); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(pb); err != nil {
		t.Fatal(err)
	}
	// Unflushed writes are lost with the process, as a crash would lose them.
	mustKey(t, b, "user-1")
	mustPut(t, b, "count", "unflushed")
	b.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	if s, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b, err = s.Backend(BackendOptions{Operator: "counter", Range: KeyGroupRange{0, 128}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for i := range 100 {
		mustKey(t, b, fmt.Sprintf("user-%d", i))
		if i == 7 {
			wantGet(t, b, "count", nil)
			continue
		}
		wantGet(t, b, "count", ptr(fmt.Sprint(i*i)))
	}
	if v, ok, err := s.GetMeta("source/payments"); err != nil || !ok || string(v) != "seq=100" {
		t.Fatalf("metadata after reopen: %q %t %v", v, ok, err)
	}
}
