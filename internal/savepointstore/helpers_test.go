package savepointstore

import (
	"bytes"
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/checkpointtest"
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

// spFixture is the shared savepoint fixture (internal/checkpointtest) with
// a checkpoint writer through package checkpoint's API.
type spFixture struct{ *checkpointtest.Fixture }

func newSPFixture(t *testing.T) spFixture { return spFixture{checkpointtest.NewFixture(t)} }

// checkpoint writes 200 more keys and checkpoint id of them, by the module
// checkpointtest.Module.
func (f spFixture) checkpoint(t *testing.T, id uint64) {
	t.Helper()
	f.AddKeys(t)
	created := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	m := checkpoint.Manifest{
		ID:      id,
		Created: created,
		Sources: []checkpoint.SourcePosition{{Name: "payments", Stream: "PAYMENTS", StreamCreated: created.Add(-time.Hour), LastSequence: 100}},
		Operators: []checkpoint.OperatorEntry{{
			Name: "fraud", ModuleSHA256: checkpointtest.ModuleSHA256, ABIVersion: 1, StateFormatVersion: 1, MaxParallelism: 128,
			Tasks: []checkpoint.TaskEntry{{KeyGroupRange: checkpoint.KeyGroupRange{Start: 0, End: 128}, Inputs: map[string]uint64{"payments": 100}}},
		}},
		Config: "pipeline \"payments\" {}\n",
	}
	if _, err := checkpoint.Write(f.CheckpointRoot, f.DB, m); err != nil {
		t.Fatal(err)
	}
}

// savepoint makes checkpoint id (written now) into savepoint name of
// pipeline "payments".
func (f spFixture) savepoint(t *testing.T, id uint64, name string) checkpoint.Savepoint {
	t.Helper()
	f.checkpoint(t, id)
	sp, err := checkpoint.CreateSavepoint(f.SavepointRoot, f.CheckpointRoot, id, checkpoint.SavepointSpec{
		Name: name, Pipeline: checkpointtest.Pipeline, Description: checkpointtest.Description,
		Created: checkpointtest.Created, Modules: f.Modules()})
	if err != nil {
		t.Fatal(err)
	}
	return sp
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
