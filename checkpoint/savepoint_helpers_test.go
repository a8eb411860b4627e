package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// spModule stands for an operator module: the savepoint layer copies and
// hashes modules but never runs them.
var spModule = []byte("\x00asm fraud operator v1")

// spFixture is a checkpoint root written from a real Pebble DB, a module
// file and an empty savepoint root.
type spFixture struct {
	ckRoot, spRoot string
	module         string // path of the module file
	db             *pebble.DB
	keys           int
}

func newSPFixture(tb testing.TB) *spFixture {
	tb.Helper()
	dir := tb.TempDir()
	db, err := pebble.Open(filepath.Join(dir, "db"), &pebble.Options{Logger: quietLogger{}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	f := &spFixture{ckRoot: filepath.Join(dir, "checkpoints"), spRoot: filepath.Join(dir, "savepoints"),
		module: filepath.Join(dir, "fraud.wasm"), db: db}
	if err := os.WriteFile(f.module, spModule, 0o644); err != nil {
		tb.Fatal(err)
	}
	return f
}

// checkpoint writes 200 more keys and checkpoint id of them.
func (f *spFixture) checkpoint(tb testing.TB, id uint64) Manifest {
	tb.Helper()
	b := f.db.NewBatch()
	for i := f.keys; i < f.keys+200; i++ {
		if err := b.Set(testKey(i), fmt.Appendf(nil, "value-%d", i), nil); err != nil {
			tb.Fatal(err)
		}
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		tb.Fatal(err)
	}
	f.keys += 200
	return writeModuleCheckpoint(tb, f.ckRoot, f.db, id, spModule)
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
func (f *spFixture) spec(name string) SavepointSpec {
	return SavepointSpec{Name: name, Pipeline: "payments", Description: "before the v2 rollout",
		Created: time.Date(2026, 3, 1, 12, 30, 45, 0, time.UTC), Modules: map[string]string{sha256Hex(spModule): f.module}}
}

// savepoint makes checkpoint id (written now) into savepoint name.
func (f *spFixture) savepoint(tb testing.TB, id uint64, name string) Savepoint {
	tb.Helper()
	f.checkpoint(tb, id)
	sp, err := CreateSavepoint(f.spRoot, f.ckRoot, id, f.spec(name))
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

// wantErr fails unless err wraps target and mentions every part.
func wantErr(tb testing.TB, err, target error, parts ...string) {
	tb.Helper()
	if err == nil {
		tb.Fatalf("no error; want %v", target)
	}
	if target != nil && !errors.Is(err, target) {
		tb.Fatalf("error %v does not wrap %v", err, target)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			tb.Errorf("error %q does not say %q", err, p)
		}
	}
}
