package checkpoint

import (
	"errors"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/wasmstream/wasmstream/internal/checkpointtest"
)

func TestRetainKeepsNewest(t *testing.T) {
	db := openDB(t)
	root := t.TempDir()
	for id := uint64(1); id <= 5; id++ {
		checkpointtest.PutKeys(t, db, int(id)*10, int(id)*10+10)
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

// A run that rolled back keeps what it restored until it has written keep
// checkpoints of its own; the checkpoints it skipped go first.
func TestRetainRank(t *testing.T) {
	ids := func(from, to uint64) []uint64 { // newest first
		var out []uint64
		for id := to; id >= from; id-- {
			out = append(out, id)
		}
		return out
	}
	cases := []struct {
		name string
		ids  []uint64
		o    RetainOptions
		want []uint64
	}{
		{"no restore", ids(1, 9), RetainOptions{FirstOwn: 9}, ids(1, 9)},
		{"restored the newest", ids(1, 9), RetainOptions{Restored: 8, FirstOwn: 9}, ids(1, 9)},
		{"restored, first own not known", ids(1, 8), RetainOptions{Restored: 6}, ids(1, 8)},
		// The report: 7 and 8 share a damaged table file, the run rolled
		// back to 6 and wrote 9.
		{"rolled back past 7 and 8", ids(1, 9), RetainOptions{Restored: 6, FirstOwn: 9}, []uint64{9, 6, 5, 4, 3, 2, 1, 8, 7}},
		{"rolled back, restored one removed", []uint64{10, 9, 8, 7, 5}, RetainOptions{Restored: 6, FirstOwn: 9}, []uint64{10, 9, 5, 8, 7}},
		{"rolled back, nothing written yet", ids(1, 8), RetainOptions{Restored: 6, FirstOwn: 9}, []uint64{6, 5, 4, 3, 2, 1, 8, 7}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.o.rank(slices.Clone(c.ids)); !slices.Equal(got, c.want) {
				t.Fatalf("rank %v, want %v", got, c.want)
			}
		})
	}
}

// The rule on disk: what RetainWith removes for a run that restored 2 of
// 1..4 and wrote 5, and then 6 and 7.
func TestRetainWithKeepsTheRestoredCheckpoint(t *testing.T) {
	db := openDB(t)
	root := t.TempDir()
	write := func(id uint64) {
		checkpointtest.PutKeys(t, db, int(id)*10, int(id)*10+10)
		writeCheckpoint(t, root, db, id)
	}
	for id := uint64(1); id <= 5; id++ {
		write(id)
	}
	o := RetainOptions{Restored: 2, FirstOwn: 5}
	steps := []struct {
		write         uint64 // 0: none
		removed, left []uint64
	}{
		{0, []uint64{4, 3}, []uint64{5, 2, 1}},
		{6, []uint64{1}, []uint64{6, 5, 2}},
		{7, []uint64{2}, []uint64{7, 6, 5}},
	}
	for _, s := range steps {
		if s.write != 0 {
			write(s.write)
		}
		removed, err := RetainWith(root, 3, o)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(removed, s.removed) {
			t.Fatalf("after %d: removed %v, want %v", s.write, removed, s.removed)
		}
		left, _ := List(root)
		if !reflect.DeepEqual(left, s.left) {
			t.Fatalf("after %d: left %v, want %v", s.write, left, s.left)
		}
		for _, id := range left {
			if err := Verify(root, id); err != nil {
				t.Fatalf("kept checkpoint damaged by retention: %v", err)
			}
		}
		if entries, _ := os.ReadDir(root); len(entries) != len(left) {
			t.Fatalf("root holds %d entries after RetainWith, want %d", len(entries), len(left))
		}
	}
	if _, err := RetainWith(root, 0, o); !errors.Is(err, ErrInvalidRetain) {
		t.Fatalf("keep 0: %v, want ErrInvalidRetain", err)
	}
}
