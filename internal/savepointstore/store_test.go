package savepointstore

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

func TestSavepointStoreRoundTrip(t *testing.T) {
	ctx := storeCtx(t)
	conn := embeddedJetStream(t)
	store := NewSavepointStore(conn, "")
	// Nothing stored yet: empty, and a clear not-found.
	if all, err := store.List(ctx, "payments"); err != nil || len(all) != 0 {
		t.Fatalf("List before any Put = %v, %v", all, err)
	}
	_, _, err := store.Get(ctx, "payments", "x")
	testutil.WantErr(t, err, checkpoint.ErrSavepointNotFound, "payments/x.tar", "does not exist")

	f := newSPFixture(t)
	sp := f.savepoint(t, 4, "x")
	st, err := store.Put(ctx, f.SavepointRoot, "x")
	if err != nil {
		t.Fatal(err)
	}
	if st.Object != "payments/x.tar" || st.Bucket != SavepointBucket || st.CheckpointID != 4 || !st.Created.Equal(sp.Info.Created) ||
		st.Description != sp.Info.Description || st.Size != uint64(len(archiveOf(t, f.SavepointRoot, "x"))) || st.AlreadyStored {
		t.Fatalf("stored %+v", st)
	}
	if again, err := store.Put(ctx, f.SavepointRoot, "x"); err != nil || !again.AlreadyStored {
		t.Fatalf("second Put: %+v, %v; want AlreadyStored", again, err)
	}
	if all, err := store.List(ctx, "payments"); err != nil || len(all) != 1 || all[0].Name != "x" {
		t.Fatalf("List = %+v, %v", all, err)
	}
	if all, _ := store.List(ctx, "other"); len(all) != 0 {
		t.Fatalf("another pipeline's list holds %+v", all)
	}

	// Another machine: an empty data dir imports it, or adopts it as a
	// checkpoint.
	r, got, err := store.Get(ctx, "payments", "x")
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "savepoints")
	imported, _, err := checkpoint.ImportArchive(r, other, "")
	r.Close()
	if err != nil || !reflect.DeepEqual(imported.Info, sp.Info) || got.Name != "x" {
		t.Fatalf("import from the store: %+v, %v", imported.Info, err)
	}
	r, _, err = store.Get(ctx, "payments", "x")
	if err != nil {
		t.Fatal(err)
	}
	ckRoot := filepath.Join(t.TempDir(), "checkpoints")
	a, err := checkpoint.AdoptArchive(r, ckRoot)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	adopted(t, ckRoot, a, sp)

	if err := store.Remove(ctx, "payments", "x"); err != nil {
		t.Fatal(err)
	}
	_, _, err = store.Get(ctx, "payments", "x")
	testutil.WantErr(t, err, checkpoint.ErrSavepointNotFound, "payments/x.tar", "no savepoints there")
	testutil.WantErr(t, store.Remove(ctx, "payments", "x"), checkpoint.ErrSavepointNotFound)
}

func TestSavepointStoreNeverReplacesAnotherSavepoint(t *testing.T) {
	ctx := storeCtx(t)
	store := NewSavepointStore(embeddedJetStream(t), "")
	a, b := newSPFixture(t), newSPFixture(t)
	a.savepoint(t, 1, "x")
	b.checkpoint(t, 1)
	b.savepoint(t, 2, "x")
	if _, err := store.Put(ctx, a.SavepointRoot, "x"); err != nil {
		t.Fatal(err)
	}
	_, err := store.Put(ctx, b.SavepointRoot, "x")
	testutil.WantErr(t, err, checkpoint.ErrSavepointExists, "payments/x.tar", "another savepoint")
	r, st, err := store.Get(ctx, "payments", "x")
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	if st.CheckpointID != 1 {
		t.Fatalf("the stored savepoint is of checkpoint %d, want the first one's 1", st.CheckpointID)
	}
	_, _, err = store.Get(ctx, "payments", "y")
	testutil.WantErr(t, err, checkpoint.ErrSavepointNotFound, "pipeline payments has: x")
	_, _, err = store.Get(ctx, "payments", "Y/../x")
	if !errors.Is(err, checkpoint.ErrSavepointName) {
		t.Fatalf("a name with a path: %v", err)
	}
}
