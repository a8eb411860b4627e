package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/internal/checkpointtest"
)

// writtenCheckpoint returns a root with checkpoint 1 of a DB holding data in
// both an SST and the WAL-derived files.
func writtenCheckpoint(t *testing.T) (string, Manifest) {
	t.Helper()
	db := openDB(t)
	checkpointtest.PutKeys(t, db, 0, 2000)
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	checkpointtest.PutKeys(t, db, 2000, 2100)
	root := t.TempDir()
	return root, writeCheckpoint(t, root, db, 1)
}

func TestVerifyPasses(t *testing.T) {
	root, _ := writtenCheckpoint(t)
	if err := Verify(root, 1); err != nil {
		t.Fatal(err)
	}
}

// TestVerifyDetectsBitFlips flips one bit in each file in turn.
func TestVerifyDetectsBitFlips(t *testing.T) {
	root, m := writtenCheckpoint(t)
	flipped := 0
	for _, f := range m.Files {
		if f.Size == 0 {
			continue
		}
		p := filepath.Join(Dir(root, 1), f.Path)
		flipBit(t, p, f.Size/2)
		err := Verify(root, 1)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), f.Path) ||
			!strings.Contains(err.Error(), "checkpoint 1") {
			t.Fatalf("bit flip in %s: got %v, want ErrCorrupt naming the file", f.Path, err)
		}
		flipBit(t, p, f.Size/2)
		flipped++
	}
	if flipped < 2 {
		t.Fatalf("only %d non-empty files to flip", flipped)
	}
	if err := Verify(root, 1); err != nil {
		t.Fatalf("after restoring every bit: %v", err)
	}
}

func TestVerifyMissingFile(t *testing.T) {
	root, m := writtenCheckpoint(t)
	victim := m.Files[len(m.Files)-1].Path
	if err := os.Remove(filepath.Join(Dir(root, 1), victim)); err != nil {
		t.Fatal(err)
	}
	err := Verify(root, 1)
	if !errors.Is(err, ErrMissingFile) || !strings.Contains(err.Error(), victim) {
		t.Fatalf("got %v, want ErrMissingFile naming %s", err, victim)
	}
}

func TestVerifyExtraFile(t *testing.T) {
	root, _ := writtenCheckpoint(t)
	if err := os.WriteFile(filepath.Join(StateDir(root, 1), "000999.sst"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Verify(root, 1)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "state/000999.sst") {
		t.Fatalf("got %v, want ErrCorrupt naming the extra file", err)
	}
}

func TestVerifyTruncatedFile(t *testing.T) {
	root, m := writtenCheckpoint(t)
	f := largest(m.Files)
	if err := os.Truncate(filepath.Join(Dir(root, 1), f.Path), f.Size-1); err != nil {
		t.Fatal(err)
	}
	if err := Verify(root, 1); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), f.Path) {
		t.Fatalf("got %v, want ErrCorrupt naming %s", err, f.Path)
	}
}

func TestVerifyBadManifest(t *testing.T) {
	for _, c := range []struct {
		name  string
		spoil func(path string) error
	}{
		{"truncated", func(p string) error {
			info, err := os.Stat(p)
			if err != nil {
				return err
			}
			return os.Truncate(p, info.Size()/2)
		}},
		{"empty", func(p string) error { return os.Truncate(p, 0) }},
		{"missing", os.Remove},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, _ := writtenCheckpoint(t)
			if err := c.spoil(filepath.Join(Dir(root, 1), manifestFile)); err != nil {
				t.Fatal(err)
			}
			err := Verify(root, 1)
			if !errors.Is(err, ErrCorruptManifest) || !strings.Contains(err.Error(), "checkpoint 1") {
				t.Fatalf("got %v, want ErrCorruptManifest naming checkpoint 1", err)
			}
		})
	}
}

func flipBit(t *testing.T, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0x10
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

func largest(files []FileEntry) FileEntry {
	best := files[0]
	for _, f := range files {
		if f.Size > best.Size {
			best = f
		}
	}
	return best
}

// Verify's error holds a *FileError per bad file, with the manifest's path
// and the kind of damage, so a caller can say in short what is wrong.
func TestVerifyFileErrors(t *testing.T) {
	root, m := writtenCheckpoint(t)
	var flipped, gone string
	for _, f := range m.Files {
		switch {
		case f.Size > 0 && flipped == "":
			flipped = f.Path
			flipBit(t, filepath.Join(Dir(root, 1), f.Path), f.Size/2)
		case gone == "":
			gone = f.Path
			if err := os.Remove(filepath.Join(Dir(root, 1), f.Path)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(StateDir(root, 1), "stray"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	want := map[string]error{flipped: ErrCorrupt, gone: ErrMissingFile, "state/stray": ErrCorrupt}
	got := map[string]error{}
	var walk func(err error)
	walk = func(err error) {
		switch e := err.(type) {
		case *FileError:
			got[e.Path] = e
		case interface{ Unwrap() []error }:
			for _, x := range e.Unwrap() {
				walk(x)
			}
		case interface{ Unwrap() error }:
			walk(e.Unwrap())
		}
	}
	err := Verify(root, 1)
	walk(err)
	if len(got) != len(want) {
		t.Fatalf("file errors %v, want %d of them; error: %v", got, len(want), err)
	}
	for path, kind := range want {
		if !errors.Is(got[path], kind) {
			t.Errorf("%s: %v, want %v", path, got[path], kind)
		}
	}
}
