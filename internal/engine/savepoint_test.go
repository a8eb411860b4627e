package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/natsio"
)

// sharedJetStream starts a real embedded JetStream server on a random port
// with a temp store and returns its URL: pipelines that name it in
// server.url read the same streams, as pipelines of two machines on one
// NATS do.
func sharedJetStream(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := natsio.Connect(ctx, natsio.ServerOptions{StoreDir: t.TempDir(), EmbeddedPort: natsio.RandomPort})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ClientURL()
}

// savepointPipeline is a sum2 pipeline (see sumSetup) named name, with its
// own data dir and its own copy of the module. server is a server block
// body: `url = "..."` for a shared server, or an embedded_port.
func savepointPipeline(t *testing.T, name, server string, retain int) *config.Pipeline {
	t.Helper()
	built := testutil.GoGuest(t, sum2Pkg)
	dataDir := t.TempDir()
	seedCompilationCache(t, dataDir, built)
	module := filepath.Join(t.TempDir(), "sum2.wasm")
	if err := copyOneFile(built, module); err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`
name     = %q
data_dir = %q
server { %s }
checkpoint { retain = %d }
stream "SUMA" { subjects = ["suma.>"] }
stream "SUMB" { subjects = ["sumb.>"] }
stream "SUMOUT" {
  subjects         = ["sumout.>"]
  duplicate_window = "10m"
}
source "a" {
  stream  = "SUMA"
  subject = %q
}
source "b" {
  stream  = "SUMB"
  subject = %q
}
operator "sum" {
  module      = %q
  inputs      = ["a", "b"]
  parallelism = 2
  key { json_field = "k" }
  outputs = { out = "sums" }
}
sink "sums" { subject = %q }
`, name, dataDir, server, retain, sumSubjectA, sumSubjectB, module, sumSubjectOut)
	path := filepath.Join(t.TempDir(), "pipeline.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func urlServer(url string) string { return fmt.Sprintf("url = %q", url) }

// perInput counts the records of each input: the stream sequences a
// checkpoint after them records.
func perInput(recs ...[]sumRecord) map[string]uint64 {
	n := map[string]uint64{"a": 0, "b": 0}
	for _, rs := range recs {
		for _, r := range rs {
			n[map[int]string{0: "a", 1: "b"}[r.input]]++
		}
	}
	return n
}

func positions(m checkpoint.Manifest) map[string]uint64 {
	out := map[string]uint64{}
	for _, s := range m.Sources {
		out[s.Name] = s.LastSequence
	}
	return out
}

func spCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestSavepointRestoresIntoAnotherPipeline is the savepoint's purpose: a
// savepoint of one pipeline, exported as an archive and restored into a
// fresh data dir of a second pipeline on the same JetStream server, gives
// that pipeline exactly the first one's state at the savepoint, and it
// resumes the sources at the savepoint's positions.
func TestSavepointRestoresIntoAnotherPipeline(t *testing.T) {
	ctx := spCtx(t)
	url := sharedJetStream(t)
	first := savepointPipeline(t, "sums-first", urlServer(url), 3)
	recs1 := sumRecords(300, 25, 1)
	runSums(t, first, Options{}, recs1)

	res, err := CreateSavepoint(ctx, first, SavepointOptions{Name: "golden", Description: "before the replay test"}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	sp := res.Savepoint
	if res.Triggered || sp.Info.Name != "golden" || sp.Info.Pipeline != "sums-first" || !reflect.DeepEqual(positions(sp.Manifest), perInput(recs1)) {
		t.Fatalf("savepoint %+v (triggered %v), positions %v; want those of %v", sp.Info, res.Triggered, positions(sp.Manifest), perInput(recs1))
	}
	if err := checkpoint.VerifySavepoint(SavepointRoot(first), "golden"); err != nil {
		t.Fatal(err)
	}
	mod, _ := os.ReadFile(filepath.Join(sp.Dir, "modules", sp.Manifest.Operators[0].ModuleSHA256+".wasm"))
	if want, _ := os.ReadFile(first.Operators[0].Module); !bytes.Equal(mod, want) {
		t.Fatal("the savepoint does not hold the operator's module")
	}
	archive := filepath.Join(t.TempDir(), "golden.tar")
	writeArchiveFile(t, first, "golden", archive)

	// Records after the savepoint, on the shared streams.
	recs2 := sumRecords(200, 25, 2)
	publishSums(t, natsio.ServerOptions{URL: url}, recs2)

	second := savepointPipeline(t, "sums-second", urlServer(url), 3)
	id, err := ImportSavepoint(ctx, second, archive, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	if id != sp.Manifest.ID {
		t.Fatalf("imported as checkpoint %d, want its own free id %d", id, sp.Manifest.ID)
	}
	firstState, err := DumpCheckpointState(CheckpointRoot(first), sp.Manifest.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := dumpState(t, second, id); !reflect.DeepEqual(got, firstState) || len(got) == 0 {
		t.Fatalf("the second pipeline's state (%d entries) is not the first's at the savepoint (%d entries)", len(got), len(firstState))
	}
	checkSums(t, second, id, expectedSums(recs1))

	stats := runSums(t, second, Options{Recovery: RecoveryOptions{FromCheckpoint: id}}, nil)
	if stats.Read != uint64(len(recs2)) || stats.Processed != uint64(len(recs2)) {
		t.Fatalf("the second pipeline read %d and processed %d records; want exactly the %d after the savepoint", stats.Read, stats.Processed, len(recs2))
	}
	last := newestCheckpoint(t, second)
	checkSums(t, second, last.ID, expectedSums(recs1, recs2))
	if !reflect.DeepEqual(positions(last), perInput(recs1, recs2)) {
		t.Fatalf("positions %v, want %v", positions(last), perInput(recs1, recs2))
	}
}

// TestSavepointOnAFreshEmbeddedServerIsRefused: the embedded default of a
// fresh machine has its own streams, other incarnations of the savepoint's
// streams; the restore refuses them by design and names the choices.
func TestSavepointOnAFreshEmbeddedServerIsRefused(t *testing.T) {
	skipInRacePass(t)
	ctx := spCtx(t)
	first := savepointPipeline(t, "sums", urlServer(sharedJetStream(t)), 3)
	runSums(t, first, Options{}, sumRecords(50, 5, 1))
	res, err := CreateSavepoint(ctx, first, SavepointOptions{}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "sp.tar")
	writeArchiveFile(t, first, res.Savepoint.Info.Name, archive)

	fresh := savepointPipeline(t, "sums", fmt.Sprintf("embedded_port = %d", testutil.FreePort(t)), 3)
	id, err := ImportSavepoint(ctx, fresh, archive, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	err = openRefused(t, fresh, Options{Recovery: RecoveryOptions{FromCheckpoint: id}})
	wantRecoveryError(t, err, id, "stream was recreated", "--empty-state")
}

// TestSavepointOfARunningPipeline: the running pipeline takes a checkpoint
// for the savepoint, which goes to the Object Store too, from where a fresh
// data dir restores it.
func TestSavepointOfARunningPipeline(t *testing.T) {
	ctx := spCtx(t)
	url := sharedJetStream(t)
	first := savepointPipeline(t, "sums-live", urlServer(url), 3)
	runCtx, stop := context.WithCancel(ctx)
	p, err := Open(runCtx, first, quietOptions(t, Options{StopWhenIdle: time.Hour}))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ran := make(chan error, 1)
	go func() { ran <- p.Run(runCtx) }()
	recs := sumRecords(400, 30, 3)
	publishSums(t, natsio.ServerOptions{URL: url}, recs)
	waitUntil(t, "the running pipeline processed every record", func() bool { return p.Stats().Processed == uint64(len(recs)) })

	_, err = ImportSavepoint(ctx, first, "whatever", testLogger(t))
	if !errors.Is(err, ErrDataDirInUse) {
		t.Fatalf("restoring a savepoint under a running pipeline: %v; want ErrDataDirInUse", err)
	}
	res, err := CreateSavepoint(ctx, first, SavepointOptions{ToObjectStore: true}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	sp := res.Savepoint
	if !res.Triggered || !reflect.DeepEqual(positions(sp.Manifest), perInput(recs)) {
		t.Fatalf("savepoint of checkpoint %d (triggered %v) at %v; want a new checkpoint at %v", sp.Info.CheckpointID, res.Triggered, positions(sp.Manifest), perInput(recs))
	}
	if res.Stored == nil || res.Stored.Object != "sums-live/"+sp.Info.Name+".tar" || res.Server != url {
		t.Fatalf("stored %+v on %s", res.Stored, res.Server)
	}
	stop()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}

	second := savepointPipeline(t, "sums-other", urlServer(url), 3)
	id, err := ImportSavepoint(ctx, second, "objectstore:sums-live/"+sp.Info.Name, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	checkSums(t, second, id, expectedSums(recs))
	_, err = ImportSavepoint(ctx, second, "objectstore:nope", testLogger(t))
	if !errors.Is(err, ErrSavepointRestore) || !errors.Is(err, checkpoint.ErrSavepointNotFound) {
		t.Fatalf("a missing Object Store savepoint: %v", err)
	}
}

// TestSavepointOutlivesRetention: retention removes the checkpoint, not
// the savepoint, which restores into its own data dir as a rollback.
func TestSavepointOutlivesRetention(t *testing.T) {
	skipInRacePass(t)
	ctx := spCtx(t)
	cfg := savepointPipeline(t, "sums", urlServer(sharedJetStream(t)), 1)
	recs1, recs2 := sumRecords(150, 10, 4), sumRecords(120, 10, 5)
	runSums(t, cfg, Options{}, recs1)
	res, err := CreateSavepoint(ctx, cfg, SavepointOptions{Name: "keep"}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	kept := res.Savepoint.Manifest.ID
	runSums(t, cfg, Options{}, recs2)
	if ids, _ := checkpoint.List(CheckpointRoot(cfg)); slices.Contains(ids, kept) || len(ids) != 1 {
		t.Fatalf("checkpoints %v: retention should have removed %d", ids, kept)
	}
	if err := checkpoint.VerifySavepoint(SavepointRoot(cfg), "keep"); err != nil {
		t.Fatal(err)
	}
	ro := RecoveryOptions{FromSavepoint: "keep"}
	if err := importFromSavepoint(ctx, cfg, &ro, testLogger(t)); err != nil {
		t.Fatal(err)
	}
	if ro.FromCheckpoint != kept {
		t.Fatalf("restored as checkpoint %d, want its own free id %d", ro.FromCheckpoint, kept)
	}
	// Open imports it again (the data dir holds the same checkpoint: reused)
	// and restores it: the run flag's path.
	stats := runSums(t, cfg, Options{Recovery: RecoveryOptions{FromSavepoint: "keep"}}, nil)
	if stats.Read != uint64(len(recs2)) {
		t.Fatalf("read %d records after rolling back to the savepoint, want the %d after it", stats.Read, len(recs2))
	}
	checkSums(t, cfg, newestCheckpoint(t, cfg).ID, expectedSums(recs1, recs2))

	// The module file changed: the savepoint still has the old module, so
	// a new savepoint of the same state finds it there; without it, none.
	if err := os.WriteFile(cfg.Operators[0].Module, []byte("another build"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := CreateSavepoint(ctx, cfg, SavepointOptions{Name: "again"}, nil); err != nil {
		t.Fatalf("the module of an earlier savepoint was not used: %v", err)
	}
	for _, name := range []string{"keep", "again"} {
		if err := checkpoint.RemoveSavepoint(SavepointRoot(cfg), name); err != nil {
			t.Fatal(err)
		}
	}
	_, err = CreateSavepoint(ctx, cfg, SavepointOptions{}, nil)
	if !errors.Is(err, checkpoint.ErrModuleMissing) {
		t.Fatalf("a savepoint without its module: %v", err)
	}
}

func TestSavepointRefusals(t *testing.T) {
	skipInRacePass(t)
	ctx := spCtx(t)
	cfg := savepointPipeline(t, "sums", urlServer(sharedJetStream(t)), 3)
	_, err := CreateSavepoint(ctx, cfg, SavepointOptions{}, nil)
	if !errors.Is(err, ErrNoCheckpoint) {
		t.Fatalf("a savepoint before any checkpoint: %v", err)
	}
	runSums(t, cfg, Options{}, sumRecords(40, 5, 6))
	if _, err := CreateSavepoint(ctx, cfg, SavepointOptions{Name: "Bad/Name"}, nil); !errors.Is(err, checkpoint.ErrSavepointName) {
		t.Fatalf("a bad name: %v", err)
	}
	if _, err := CreateSavepoint(ctx, cfg, SavepointOptions{Checkpoint: 99}, nil); !errors.Is(err, checkpoint.ErrCheckpointNotFound) {
		t.Fatalf("a checkpoint that is not retained: %v", err)
	}
	res, err := CreateSavepoint(ctx, cfg, SavepointOptions{Name: "sp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(t.TempDir(), "sp.tar")
	writeArchiveFile(t, cfg, "sp", good)
	data, _ := os.ReadFile(good)
	data[len(data)/2] ^= 0x01
	damaged := filepath.Join(t.TempDir(), "damaged.tar")
	if err := os.WriteFile(damaged, data, 0o644); err != nil {
		t.Fatal(err)
	}

	other := savepointPipeline(t, "sums", urlServer(sharedJetStream(t)), 3)
	before := treeDigest(t, other.DataDir)
	_, err = ImportSavepoint(ctx, other, damaged, nil)
	if !errors.Is(err, ErrSavepointRestore) || !errors.Is(err, checkpoint.ErrCorruptArchive) {
		t.Fatalf("a damaged archive: %v", err)
	}
	after := treeDigest(t, other.DataDir)
	delete(after, filepath.Join(other.DataDir, "LOCK"))
	sameDigest(t, "the data dir after a refused import", before, after)

	_, err = ImportSavepoint(ctx, other, "no-such-savepoint", nil)
	if !errors.Is(err, checkpoint.ErrSavepointNotFound) {
		t.Fatalf("an unknown name: %v", err)
	}
	ro := RecoveryOptions{FromSavepoint: "sp", EmptyState: true}
	if err := importFromSavepoint(ctx, cfg, &ro, testLogger(t)); !errors.Is(err, ErrSavepointRestore) {
		t.Fatalf("--from-savepoint with --empty-state: %v", err)
	}
	// Into its own data dir, whose checkpoint of that id is still there:
	// the same checkpoint, reused as it is.
	id, err := ImportSavepoint(ctx, cfg, "sp", nil)
	if err != nil || id != res.Savepoint.Manifest.ID {
		t.Fatalf("import into its own data dir: %d, %v; want the same checkpoint %d", id, err, res.Savepoint.Manifest.ID)
	}
}

func writeArchiveFile(t *testing.T, cfg *config.Pipeline, name, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkpoint.WriteArchive(f, SavepointRoot(cfg), name); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// waitUntil polls cond; the bound only keeps a broken run from hanging the
// test, it is not a performance assertion.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
