// Package checkpointtest holds the savepoint test fixture shared by the
// checkpoint package's own tests and the tests of the packages built on it
// (internal/savepointstore): a real Pebble DB whose keys grow by 200 per
// checkpoint, a stand-in module file, the roots of the checkpoints and the
// savepoints, and the values of the fixture's savepoint spec.
//
// It does not import checkpoint, so that checkpoint's in-package tests can
// import it; each caller writes the manifest and calls CreateSavepoint
// through its own view of that package.
package checkpointtest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// Module stands for an operator module: the savepoint layer copies and
// hashes modules but never runs them.
var Module = []byte("\x00asm fraud operator v1")

// ModuleSHA256 is the hex SHA-256 of Module, the hash a manifest records.
var ModuleSHA256 = func() string {
	sum := sha256.Sum256(Module)
	return hex.EncodeToString(sum[:])
}()

// What the fixture's savepoint spec says besides its name and modules.
const (
	Pipeline    = "payments"
	Description = "before the v2 rollout"
)

// Created is the time of the fixture's savepoints.
var Created = time.Date(2026, 3, 1, 12, 30, 45, 0, time.UTC)

// KeysPerCheckpoint is how many keys AddKeys writes.
const KeysPerCheckpoint = 200

// Fixture is a Pebble DB, a file holding Module and the roots under which
// a test writes checkpoints and savepoints.
type Fixture struct {
	CheckpointRoot, SavepointRoot string
	ModuleFile                    string
	DB                            *pebble.DB
	keys                          int // written so far by AddKeys
}

// NewFixture opens the DB in a temp dir (closed when the test ends) and
// writes the module file; both roots are still absent.
func NewFixture(tb testing.TB) *Fixture {
	tb.Helper()
	dir := tb.TempDir()
	db, err := pebble.Open(filepath.Join(dir, "db"), &pebble.Options{Logger: QuietLogger{}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	f := &Fixture{CheckpointRoot: filepath.Join(dir, "checkpoints"), SavepointRoot: filepath.Join(dir, "savepoints"),
		ModuleFile: filepath.Join(dir, "fraud.wasm"), DB: db}
	if err := os.WriteFile(f.ModuleFile, Module, 0o644); err != nil {
		tb.Fatal(err)
	}
	return f
}

// AddKeys writes the next KeysPerCheckpoint keys, the state of the next
// checkpoint.
func (f *Fixture) AddKeys(tb testing.TB) {
	tb.Helper()
	PutKeys(tb, f.DB, f.keys, f.keys+KeysPerCheckpoint)
	f.keys += KeysPerCheckpoint
}

// Modules is the spec's module map: Module's hash to the module file.
func (f *Fixture) Modules() map[string]string {
	return map[string]string{ModuleSHA256: f.ModuleFile}
}

// Key is the i-th key PutKeys writes.
func Key(i int) []byte { return fmt.Appendf(nil, "key-%06d", i) }

// PutKeys writes keys [from, to) in one NoSync batch, the way the state
// store flushes at barriers.
func PutKeys(tb testing.TB, db *pebble.DB, from, to int) {
	tb.Helper()
	b := db.NewBatch()
	for i := from; i < to; i++ {
		if err := b.Set(Key(i), fmt.Appendf(nil, "value-%d", i), nil); err != nil {
			tb.Fatal(err)
		}
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		tb.Fatal(err)
	}
}

// QuietLogger keeps Pebble's informational lines out of test output.
type QuietLogger struct{}

func (QuietLogger) Infof(string, ...any)         {}
func (QuietLogger) Errorf(f string, args ...any) { fmt.Printf(f+"\n", args...) }
func (QuietLogger) Fatalf(f string, args ...any) { panic(fmt.Sprintf(f, args...)) }
