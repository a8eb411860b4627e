package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestDirNames(t *testing.T) {
	if got := filepath.Base(Dir("/r", 42)); got != "chk-00000000000000000042" {
		t.Fatalf("Dir: %s", got)
	}
	for _, c := range []struct {
		name string
		id   uint64
		ok   bool
	}{
		{"chk-00000000000000000042", 42, true},
		{"chk-18446744073709551615", 1<<64 - 1, true},
		{"chk-00000000000000000000", 0, false},
		{"chk-42", 0, false},
		{"chk-99999999999999999999", 0, false},
		{"chk-0000000000000000004x", 0, false},
		{".tmp-chk-42-123", 0, false},
		{"CHK-00000000000000000042", 0, false},
	} {
		id, ok := parseDirName(c.name)
		if id != c.id || ok != c.ok {
			t.Errorf("parseDirName(%q) = %d, %v; want %d, %v", c.name, id, ok, c.id, c.ok)
		}
	}
}

func TestListNewestFirstIgnoringTemp(t *testing.T) {
	db := openDB(t)
	root := t.TempDir()
	for _, id := range []uint64{2, 10, 1} {
		writeCheckpoint(t, root, db, id)
	}
	// Leftovers of a crashed Write and Retain, and an unrelated file.
	for _, d := range []string{tempPrefix + "11-123", delPrefix + "chk-00000000000000000003"} {
		if err := os.MkdirAll(filepath.Join(root, d, stateDir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ids, err := List(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint64{10, 2, 1}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("List = %v, want %v", ids, want)
	}
}

func TestListMissingRoot(t *testing.T) {
	ids, err := List(filepath.Join(t.TempDir(), "none"))
	if err != nil || len(ids) != 0 {
		t.Fatalf("List = %v, %v; want empty", ids, err)
	}
}

func TestReadErrors(t *testing.T) {
	db := openDB(t)
	root := t.TempDir()
	writeCheckpoint(t, root, db, 1)
	if _, err := Read(root, 2); !errors.Is(err, ErrCheckpointNotFound) {
		t.Fatalf("absent id: got %v, want ErrCheckpointNotFound", err)
	}
	// A manifest moved under another id's directory is not trusted.
	if err := os.Rename(Dir(root, 1), Dir(root, 5)); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(root, 5); !errors.Is(err, ErrCorruptManifest) {
		t.Fatalf("id mismatch: got %v, want ErrCorruptManifest", err)
	}
}
