package savepointstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/natsio"
)

// embeddedJetStream starts a real embedded JetStream server on a random
// port with a fresh store, closed when the test ends.
func embeddedJetStream(t *testing.T) *natsio.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := natsio.Connect(ctx, natsio.ServerOptions{StoreDir: t.TempDir(), EmbeddedPort: natsio.RandomPort})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func storeCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// spModule stands for an operator module: savepoints copy and hash
// modules but never run them.
var spModule = []byte("\x00asm fraud operator v1")

// spFixture is a checkpoint root written by the checkpoint package from a
// real Pebble DB, a module file and an empty savepoint root.
type spFixture struct {
	ckRoot, spRoot string
	module         string // path of the module file
	db             *pebble.DB
	keys           int
}

func newSPFixture(t *testing.T) *spFixture {
	t.Helper()
	dir := t.TempDir()
	db, err := pebble.Open(filepath.Join(dir, "db"), &pebble.Options{Logger: quietLogger{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	f := &spFixture{ckRoot: filepath.Join(dir, "checkpoints"), spRoot: filepath.Join(dir, "savepoints"),
		module: filepath.Join(dir, "fraud.wasm"), db: db}
	if err := os.WriteFile(f.module, spModule, 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// checkpoint writes 200 more keys and checkpoint id of them, by the module
// spModule.
func (f *spFixture) checkpoint(t *testing.T, id uint64) {
	t.Helper()
	b := f.db.NewBatch()
	for i := f.keys; i < f.keys+200; i++ {
		if err := b.Set(fmt.Appendf(nil, "key-%06d", i), fmt.Appendf(nil, "value-%d", i), nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		t.Fatal(err)
	}
	f.keys += 200
	created := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	m := checkpoint.Manifest{
		ID:      id,
		Created: created,
		Sources: []checkpoint.SourcePosition{{Name: "payments", Stream: "PAYMENTS", StreamCreated: created.Add(-time.Hour), LastSequence: 100}},
		Operators: []checkpoint.OperatorEntry{{
			Name: "fraud", ModuleSHA256: sha256Hex(spModule), ABIVersion: 1, StateFormatVersion: 1, MaxParallelism: 128,
			Tasks: []checkpoint.TaskEntry{{KeyGroupRange: checkpoint.KeyGroupRange{Start: 0, End: 128}, Inputs: map[string]uint64{"payments": 100}}},
		}},
		Config: "pipeline \"payments\" {}\n",
	}
	if _, err := checkpoint.Write(f.ckRoot, f.db, m); err != nil {
		t.Fatal(err)
	}
}

// savepoint makes checkpoint id (written now) into savepoint name of
// pipeline "payments".
func (f *spFixture) savepoint(t *testing.T, id uint64, name string) checkpoint.Savepoint {
	t.Helper()
	f.checkpoint(t, id)
	sp, err := checkpoint.CreateSavepoint(f.spRoot, f.ckRoot, id, checkpoint.SavepointSpec{
		Name: name, Pipeline: "payments", Description: "before the v2 rollout",
		Created: time.Date(2026, 3, 1, 12, 30, 45, 0, time.UTC), Modules: map[string]string{sha256Hex(spModule): f.module}})
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// archiveOf returns savepoint name of root as an archive.
func archiveOf(t *testing.T, root, name string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := checkpoint.WriteArchive(&buf, root, name); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// adopted checks that checkpoint a.ID under root verifies and holds the
// savepoint's checkpoint: the same manifest but for its id and checksum.
func adopted(t *testing.T, root string, a checkpoint.Adoption, sp checkpoint.Savepoint) {
	t.Helper()
	if err := checkpoint.Verify(root, a.ID); err != nil {
		t.Fatalf("adopted checkpoint %d: %v", a.ID, err)
	}
	m, err := checkpoint.Read(root, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := sp.Manifest
	want.ID, want.Checksum = a.ID, m.Checksum
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("adopted manifest:\n got %+v\nwant %+v", m, want)
	}
}

// wantErr fails unless err wraps target and mentions every part.
func wantErr(t *testing.T, err, target error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want %v", target)
	}
	if !errors.Is(err, target) {
		t.Fatalf("error %v does not wrap %v", err, target)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not say %q", err, p)
		}
	}
}

// quietLogger keeps Pebble's informational lines out of test output.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any)         {}
func (quietLogger) Errorf(f string, args ...any) { fmt.Printf(f+"\n", args...) }
func (quietLogger) Fatalf(f string, args ...any) { panic(fmt.Sprintf(f, args...)) }
