package checkpoint

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/wasmstream/wasmstream/internal/checkpointtest"
	"github.com/wasmstream/wasmstream/internal/privatefs"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// A checkpoint and everything made from it hold state values in the clear:
// its directories are 0700 and its files 0600, whichever way it was
// made: written (roots created on the way), restored to a live state,
// saved as a savepoint, exported and imported, adopted back as a
// checkpoint. The DB is on privatefs as the state store's is, so the
// table files linked into a checkpoint are private too.
func TestCheckpointFilesArePrivate(t *testing.T) {
	testutil.NeedLooseUmask(t)
	dir := filepath.Join(t.TempDir(), "data")
	db, err := pebble.Open(filepath.Join(dir, "state"), &pebble.Options{Logger: checkpointtest.QuietLogger{}, FS: privatefs.Wrap(vfs.Default)})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f := spFixture{&checkpointtest.Fixture{CheckpointRoot: filepath.Join(dir, "checkpoints"), SavepointRoot: filepath.Join(dir, "savepoints"),
		DB: db, ModuleFile: filepath.Join(t.TempDir(), "fraud.wasm")}}
	if err := os.WriteFile(f.ModuleFile, checkpointtest.Module, 0o600); err != nil {
		t.Fatal(err)
	}
	f.checkpoint(t, 1)
	f.checkpoint(t, 2) // links the table files of checkpoint 1
	if err := RestoreState(f.CheckpointRoot, 2, filepath.Join(dir, "state.restoring")); err != nil {
		t.Fatal(err)
	}
	if _, err := CreateSavepoint(f.SavepointRoot, f.CheckpointRoot, 2, f.spec("golden")); err != nil {
		t.Fatal(err)
	}
	archive := archiveOf(t, f.SavepointRoot, "golden")
	if _, _, err := ImportArchive(bytes.NewReader(archive), filepath.Join(dir, "imported"), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := AdoptSavepoint(f.SavepointRoot, "golden", filepath.Join(dir, "adopted")); err != nil {
		t.Fatal(err)
	}
	if _, err := AdoptArchive(bytes.NewReader(archive), filepath.Join(dir, "adopted-archive")); err != nil {
		t.Fatal(err)
	}
	files := 0
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if fi.Mode().IsRegular() {
			files++
		}
		if mode := fi.Mode().Perm(); mode&privatefs.GroupOther != 0 {
			t.Errorf("%s: mode %04o, readable or searchable by group or others", rel, mode)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, top := range []string{"checkpoints", "state.restoring", "savepoints", "imported", "adopted", "adopted-archive"} {
		if fi, err := os.Stat(filepath.Join(dir, top)); err != nil || !fi.IsDir() {
			t.Errorf("%s was not made: %v", top, err)
		}
	}
	if files < 30 {
		t.Errorf("only %d files under %s; the walk missed what it checks", files, dir)
	}
}
