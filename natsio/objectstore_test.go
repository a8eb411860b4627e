package natsio

import (
	"errors"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
)

func TestOpenObjectStoreMissing(t *testing.T) {
	c := embedded(t)
	if _, err := c.OpenObjectStore(testCtx(t), "nothing-here"); !errors.Is(err, ErrObjectStoreNotFound) {
		t.Fatalf("got %v, want ErrObjectStoreNotFound", err)
	}
	// Opening must not have created it.
	if _, err := c.JS.ObjectStore(testCtx(t), "nothing-here"); !errors.Is(err, jetstream.ErrBucketNotFound) {
		t.Fatalf("the bucket exists after OpenObjectStore: %v", err)
	}
}

func TestEnsureObjectStoreCreatesOnceWithStorage(t *testing.T) {
	c := embedded(t)
	ctx := testCtx(t)
	for _, storage := range []string{"", StorageFile} {
		obs, err := c.EnsureObjectStore(ctx, ObjectStoreSpec{Bucket: "ops", Description: "d", Storage: storage})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := obs.PutBytes(ctx, "k-"+storage, []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	obs, err := c.OpenObjectStore(ctx, "ops")
	if err != nil {
		t.Fatal(err)
	}
	st, err := obs.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Storage() != jetstream.FileStorage || st.Description() != "d" {
		t.Fatalf("storage %v description %q, want file and d", st.Storage(), st.Description())
	}
	if list, err := obs.List(ctx); err != nil || len(list) != 2 {
		t.Fatalf("the second Ensure replaced the bucket: %d objects, %v", len(list), err)
	}
}

func TestEnsureObjectStoreMemoryAndBadStorage(t *testing.T) {
	c := embedded(t)
	ctx := testCtx(t)
	obs, err := c.EnsureObjectStore(ctx, ObjectStoreSpec{Bucket: "mem", Storage: StorageMemory})
	if err != nil {
		t.Fatal(err)
	}
	st, _ := obs.Status(ctx)
	if st.Storage() != jetstream.MemoryStorage {
		t.Fatalf("storage %v, want memory", st.Storage())
	}
	if _, err := c.EnsureObjectStore(ctx, ObjectStoreSpec{Bucket: "bad", Storage: "tape"}); !errors.Is(err, ErrInvalidStreamSpec) {
		t.Fatalf("got %v, want ErrInvalidStreamSpec", err)
	}
}
