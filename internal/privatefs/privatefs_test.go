package privatefs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"github.com/wasmstream/wasmstream/internal/privatefs"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// Every way the wrapper creates or opens a file for writing leaves it
// 0600 (from the 0666 vfs.Default uses), and MkdirAll makes every missing
// directory 0700 (from the 0755 Pebble asks for).
func TestWrapCreatesPrivate(t *testing.T) {
	testutil.NeedLooseUmask(t)
	dir := t.TempDir()
	p := privatefs.Wrap(vfs.Default)
	nested := filepath.Join(dir, "a", "b")
	if err := p.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	name := func(n string) string { return filepath.Join(nested, n) }
	create := func(n string) (vfs.File, error) { return p.Create(name(n), vfs.WriteCategoryUnspecified) }
	open := func(n string) (vfs.File, error) { return p.OpenReadWrite(name(n), vfs.WriteCategoryUnspecified) }
	reuse := func(n string) (vfs.File, error) {
		old := name(n + ".old")
		if err := os.WriteFile(old, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		return p.ReuseForWrite(old, name(n), vfs.WriteCategoryUnspecified)
	}
	for n, open := range map[string]func(string) (vfs.File, error){"create": create, "open-read-write": open, "reuse": reuse} {
		f, err := open(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		f.Close()
	}
	lock, err := p.Lock(name("LOCK"))
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	want := map[string]fs.FileMode{"a": 0o700, "a/b": 0o700, "a/b/create": 0o600, "a/b/open-read-write": 0o600, "a/b/reuse": 0o600, "a/b/LOCK": 0o600}
	for rel, mode := range want {
		fi, err := os.Stat(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != mode {
			t.Errorf("%s: mode %04o, want %04o", rel, got, mode)
		}
	}
}

// An existing directory keeps its mode: MkdirAll never tightens (or
// loosens) what the user made.
func TestWrapLeavesExistingDirs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mine")
	if err := os.Mkdir(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := privatefs.Wrap(vfs.Default).MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]fs.FileMode{"": 0o750, "sub": 0o700} {
		fi, err := os.Stat(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%q: mode %04o, want %04o", rel, got, want)
		}
	}
}

// A Pebble DB on the wrapper, and a Pebble checkpoint of it, hold no file
// or directory that the group or others can reach.
func TestWrapPebbleStoreIsPrivate(t *testing.T) {
	testutil.NeedLooseUmask(t)
	root := t.TempDir()
	db, err := pebble.Open(filepath.Join(root, "db"), &pebble.Options{FS: privatefs.Wrap(vfs.Default)})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Set([]byte("secret"), []byte("value"), pebble.Sync); err != nil {
		t.Fatal(err)
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := db.Checkpoint(filepath.Join(root, "chk", "state"), pebble.WithFlushedWAL()); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	ssts := 0
	for _, path := range walk(t, root) {
		if filepath.Ext(path.name) == ".sst" {
			ssts++
		}
		if path.mode&privatefs.GroupOther != 0 {
			t.Errorf("%s: mode %04o, open to group or others", path.name, path.mode)
		}
	}
	if ssts < 2 {
		t.Fatalf("%d table files under %s; want the DB's and the checkpoint's", ssts, root)
	}
}

// Faults the wrapped filesystem injects still reach the caller, and the
// restriction adds no operation the injector sees.
func TestWrapPassesFaults(t *testing.T) {
	dir := t.TempDir()
	var ops []errorfs.OpKind
	inner := errorfs.Wrap(vfs.Default, errorfs.InjectorFunc(func(op errorfs.Op) error {
		ops = append(ops, op.Kind)
		if op.Kind == errorfs.OpOpen {
			return os.ErrPermission
		}
		return nil
	}))
	p := privatefs.Wrap(inner)
	if vfs.Root(p) != vfs.Default {
		t.Fatal("vfs.Root does not see through the wrapper")
	}
	if _, err := p.OpenReadWrite(filepath.Join(dir, "x"), vfs.WriteCategoryUnspecified); err == nil {
		t.Fatal("the injected fault was lost")
	}
	ops = nil
	f, err := p.Create(filepath.Join(dir, "y"), vfs.WriteCategoryUnspecified)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if len(ops) != 1 || ops[0] != errorfs.OpCreate {
		t.Fatalf("operations seen by the injector: %v, want only the create", ops)
	}
}

// On a filesystem without modes the wrapper is transparent.
func TestWrapMemFS(t *testing.T) {
	mem := vfs.NewMem()
	p := privatefs.Wrap(mem)
	if err := p.MkdirAll("/d", 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := p.Create("/d/f", vfs.WriteCategoryUnspecified)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if names, err := mem.List("/d"); err != nil || len(names) != 1 {
		t.Fatalf("MemFS holds %v, %v", names, err)
	}
	if privatefs.Wrap(p) != p {
		t.Fatal("wrapping twice adds a layer")
	}
}

type entry struct {
	name string
	mode fs.FileMode
}

// walk lists every file and directory below root (the test's own
// directory, 0777 less the umask) with its permission bits.
func walk(t *testing.T, root string) []entry {
	t.Helper()
	var out []entry
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == root {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, entry{path, fi.Mode().Perm()})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
