package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
)

// failOn injects err into every operation of kind.
func failOn(kind errorfs.OpKind, err error) vfs.FS {
	return errorfs.Wrap(vfs.Default, errorfs.InjectorFunc(func(op errorfs.Op) error {
		if op.Kind == kind {
			return &os.PathError{Op: "injected", Path: op.Path, Err: err}
		}
		return nil
	}))
}

// entries lists dir, failing the test on error.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "MARK")
	for _, content := range []string{"first\n", "second\n"} {
		if err := Write(vfs.Default, path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != content {
			t.Fatalf("read %q, %v; want %q", b, err, content)
		}
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Fatalf("directory holds %v, want only MARK", names)
	}
}

// The mode is what os.OpenFile with perm would give, umask included.
func TestWriteKeepsMode(t *testing.T) {
	dir := t.TempDir()
	for _, perm := range []os.FileMode{0o600, 0o644} {
		path := filepath.Join(dir, fmt.Sprintf("f%o", perm))
		if err := Write(vfs.Default, path, []byte("x"), perm); err != nil {
			t.Fatal(err)
		}
		ref := filepath.Join(dir, fmt.Sprintf("ref%o", perm))
		if err := os.WriteFile(ref, nil, perm); err != nil {
			t.Fatal(err)
		}
		got, _ := os.Stat(path)
		want, _ := os.Stat(ref)
		if got.Mode() != want.Mode() {
			t.Errorf("perm %o: mode %v, os.WriteFile gives %v", perm, got.Mode(), want.Mode())
		}
	}
}

// A fault at each step: the error names the path and the step, the old
// content stays (except when only the directory fsync failed) and no
// temporary file is left.
func TestWriteFaults(t *testing.T) {
	tests := []struct {
		kind     errorfs.OpKind
		err      error
		step     string
		replaced bool
	}{
		{errorfs.OpCreate, syscall.ENOSPC, "create temporary file", false},
		{errorfs.OpFileWrite, syscall.ENOSPC, "write", false},
		{errorfs.OpFileSync, syscall.EIO, "fsync", false},
		{errorfs.OpRename, syscall.EXDEV, "rename", false},
		{errorfs.OpOpenDir, syscall.EIO, "fsync directory", true},
	}
	for _, tt := range tests {
		t.Run(tt.step, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "MANIFEST.json")
			if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			err := Write(failOn(tt.kind, tt.err), path, []byte("new"), 0o644)
			want := "write " + path + ": " + tt.step + ": "
			if !errors.Is(err, tt.err) || !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("got %v, want %q... wrapping %v", err, want, tt.err)
			}
			b, _ := os.ReadFile(path)
			if got, wantContent := string(b), map[bool]string{false: "old", true: "new"}[tt.replaced]; got != wantContent {
				t.Fatalf("file holds %q, want %q", got, wantContent)
			}
			if names := entries(t, dir); len(names) != 1 {
				t.Fatalf("directory holds %v, want only MANIFEST.json", names)
			}
		})
	}
}

func TestWriteFuncFillError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "export.tar")
	errArchive := errors.New("savepoint damaged")
	err := WriteFunc(vfs.Default, path, 0o644, func(w io.Writer) error {
		_, _ = io.WriteString(w, "half")
		return errArchive
	}, nil)
	if !errors.Is(err, errArchive) || !strings.Contains(err.Error(), path+": write: ") {
		t.Fatalf("got %v, want the fill error as the write step's", err)
	}
	if names := entries(t, dir); len(names) != 0 {
		t.Fatalf("directory holds %v, want nothing", names)
	}
}

// beforeRename runs once the temporary file is complete and the target
// still has its old content.
func TestWriteFuncBeforeRename(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "MANIFEST.json")
	calls := 0
	err := WriteFunc(vfs.Default, path, 0o644, func(w io.Writer) error {
		_, err := io.WriteString(w, "new")
		return err
	}, func() {
		calls++
		names := entries(t, dir)
		if len(names) != 1 || !strings.HasPrefix(names[0], ".MANIFEST.json.") || !strings.HasSuffix(names[0], ".tmp") {
			t.Fatalf("before the rename the directory holds %v, want one temporary file", names)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, names[0])); string(b) != "new" {
			t.Fatalf("temporary file holds %q before the rename", b)
		}
	})
	if err != nil || calls != 1 {
		t.Fatalf("error %v, beforeRename called %d times", err, calls)
	}
}

func TestWriteOnMemFS(t *testing.T) {
	fs := vfs.NewMem()
	if err := fs.MkdirAll("/d", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(fs, "/d/f", []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if names, _ := fs.List("/d"); len(names) != 1 || names[0] != "f" {
		t.Fatalf("/d holds %v", names)
	}
	if err := SyncDir(fs, "/missing"); err == nil || !strings.Contains(err.Error(), "fsync directory /missing") {
		t.Fatalf("SyncDir of a missing directory: %v", err)
	}
}
