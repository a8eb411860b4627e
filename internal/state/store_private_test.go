package state

import (
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"github.com/wasmstream/wasmstream/internal/privatefs"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// Another local user must not read a state value out of a table file
// (design.md, invariant 9): every file of a store and of a Pebble
// checkpoint of it is 0600, every directory 0700, whatever FS the caller
// passes (here an errorfs injecting nothing, as the engine's fault tests do).
func TestStoreIsPrivate(t *testing.T) {
	testutil.NeedLooseUmask(t)
	root := t.TempDir()
	passThrough := errorfs.Wrap(vfs.Default, errorfs.InjectorFunc(func(errorfs.Op) error { return nil }))
	for name, o := range map[string]Options{"default": {}, "errorfs": {FS: passThrough}} {
		dir := filepath.Join(root, name)
		s, err := Open(filepath.Join(dir, "live"), o)
		if err != nil {
			t.Fatal(err)
		}
		b := s.NewBatch()
		if err := b.Set([]byte("account-42"), []byte("balance 1000"), nil); err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(b); err != nil {
			t.Fatal(err)
		}
		if err := s.DB().Flush(); err != nil {
			t.Fatal(err)
		}
		if err := s.DB().Checkpoint(filepath.Join(dir, "chk", "state"), pebble.WithFlushedWAL()); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		checked := 0
		err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			checked++
			if mode := fi.Mode().Perm(); mode&privatefs.GroupOther != 0 {
				t.Errorf("%s: mode %04o, readable or searchable by group or others", path, mode)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if checked < 10 {
			t.Fatalf("only %d entries under %s; want a store and a checkpoint", checked, dir)
		}
	}
}
