package checkpoint

import (
	"errors"
	"os"
	"reflect"
	"testing"
)

func TestRetainKeepsNewest(t *testing.T) {
	db := openDB(t)
	root := t.TempDir()
	for id := uint64(1); id <= 5; id++ {
		putKeys(t, db, int(id)*10, int(id)*10+10)
		writeCheckpoint(t, root, db, id)
	}
	removed, err := Retain(root, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint64{3, 2, 1}; !reflect.DeepEqual(removed, want) {
		t.Fatalf("removed %v, want %v", removed, want)
	}
	ids, _ := List(root)
	if want := []uint64{5, 4}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("left %v, want %v", ids, want)
	}
	for _, id := range ids {
		if err := Verify(root, id); err != nil {
			t.Fatalf("kept checkpoint damaged by retention: %v", err)
		}
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 2 {
		t.Fatalf("root holds %d entries after Retain, want 2", len(entries))
	}
	if removed, err := Retain(root, 2); err != nil || len(removed) != 0 {
		t.Fatalf("second Retain removed %v, %v", removed, err)
	}
}

func TestRetainRefusesZero(t *testing.T) {
	if _, err := Retain(t.TempDir(), 0); !errors.Is(err, ErrInvalidRetain) {
		t.Fatalf("got %v, want ErrInvalidRetain", err)
	}
}
