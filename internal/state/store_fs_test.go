package state

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
)

// Options.FS is where the store lives: on a MemFS nothing reaches the disk.
func TestOpenOnFS(t *testing.T) {
	fs := vfs.NewMem()
	s, err := Open("/data", Options{FS: fs, CacheSizeBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	b := s.NewBatch()
	if err := b.Set([]byte("k"), []byte("v"), nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(b); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if names, err := fs.List("/data"); err != nil || len(names) == 0 {
		t.Fatalf("MemFS /data holds %v, %v; want the store", names, err)
	}
	if _, err := os.Stat("/data/CURRENT"); err == nil {
		t.Fatal("the store reached the operating system's filesystem")
	}
	s, err = Open("/data", Options{FS: fs})
	if err != nil {
		t.Fatalf("reopen on the same FS: %v", err)
	}
	defer s.Close()
	if v, closer, err := s.DB().Get([]byte("k")); err != nil || string(v) != "v" {
		t.Fatalf("Get after reopen: %q, %v", v, err)
	} else {
		closer.Close()
	}
}

// A fault the FS injects reaches the caller of Open, naming the store.
func TestOpenFSFault(t *testing.T) {
	dir := t.TempDir()
	fs := errorfs.Wrap(vfs.Default, errorfs.InjectorFunc(func(op errorfs.Op) error {
		if op.Kind == errorfs.OpCreate {
			return &os.PathError{Op: "create", Path: op.Path, Err: syscall.ENOSPC}
		}
		return nil
	}))
	_, err := Open(dir, Options{FS: fs})
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "state: open store in "+dir) {
		t.Fatalf("got %v, want ENOSPC naming the store", err)
	}
}
