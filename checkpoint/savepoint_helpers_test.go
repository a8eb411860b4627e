package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/internal/checkpointtest"
)

// spFixture is the shared savepoint fixture (internal/checkpointtest) with
// this package's checkpoint writer.
type spFixture struct{ *checkpointtest.Fixture }

func newSPFixture(tb testing.TB) spFixture { return spFixture{checkpointtest.NewFixture(tb)} }

// checkpoint writes 200 more keys and checkpoint id of them.
func (f spFixture) checkpoint(tb testing.TB, id uint64) Manifest {
	tb.Helper()
	f.AddKeys(tb)
	return writeModuleCheckpoint(tb, f.CheckpointRoot, f.DB, id, checkpointtest.Module)
}

// writeModuleCheckpoint writes checkpoint id of db under root, written by
// the module whose bytes are module.
func writeModuleCheckpoint(tb testing.TB, root string, db *pebble.DB, id uint64, module []byte) Manifest {
	tb.Helper()
	m := validManifest(id)
	m.Files, m.Metrics.BytesTotal, m.Metrics.BytesNew, m.FormatVersion = nil, 0, 0, 0
	m.Operators[0].ModuleSHA256 = sha256Hex(module)
	got, err := Write(root, db, m)
	if err != nil {
		tb.Fatal(err)
	}
	return got
}

// spec is a savepoint spec for the fixture's pipeline and module.
func (f spFixture) spec(name string) SavepointSpec {
	return SavepointSpec{Name: name, Pipeline: checkpointtest.Pipeline, Description: checkpointtest.Description,
		Created: checkpointtest.Created, Modules: f.Modules()}
}

// savepoint makes checkpoint id (written now) into savepoint name.
func (f spFixture) savepoint(tb testing.TB, id uint64, name string) Savepoint {
	tb.Helper()
	f.checkpoint(tb, id)
	sp, err := CreateSavepoint(f.SavepointRoot, f.CheckpointRoot, id, f.spec(name))
	if err != nil {
		tb.Fatal(err)
	}
	return sp
}

// archive returns savepoint name of root as an archive.
func archiveOf(tb testing.TB, root, name string) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := WriteArchive(&buf, root, name); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// dirDigest maps every file under dir (relative path) to its SHA-256, to
// show that a refused operation changed nothing; "" for a missing dir.
func dirDigest(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func sameDirDigest(tb testing.TB, what string, before, after map[string]string) {
	tb.Helper()
	for p, sum := range before {
		if after[p] != sum {
			tb.Errorf("%s: %s changed or vanished", what, p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			tb.Errorf("%s: %s appeared", what, p)
		}
	}
}

// noTemporaries fails if dir holds a temporary or half-removed directory.
func noTemporaries(tb testing.TB, dir string) {
	tb.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			tb.Errorf("%s: leftover %s", dir, e.Name())
		}
	}
}

// replaceWith writes data to path as a new inode: table files are hard
// links shared with other checkpoints, which an in-place write would
// damage too.
func replaceWith(tb testing.TB, path string, data []byte) {
	tb.Helper()
	tmp := path + ".replacing"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		tb.Fatal(err)
	}
}

// flipByte replaces path with a copy whose byte at i (from the end when
// negative) is flipped.
func flipByte(tb testing.TB, path string, i int) {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if i < 0 {
		i += len(b)
	}
	b[i] ^= 0x20
	replaceWith(tb, path, b)
}
