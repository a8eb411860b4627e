package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// A refused restore returns its error. (Open's cleanup once called Close on
// the nil pipeline its failed return had just set: a panic, not the error.)
func TestOpenErrorPathReturnsError(t *testing.T) {
	cfg := newSumSetup(t, 1).load(t)
	p, err, panicked := openCatchingPanic(cfg, quietOptions(t, Options{Recovery: RecoveryOptions{FromCheckpoint: 5}}))
	if panicked != nil {
		t.Fatalf("Open panicked instead of returning its error: %v", panicked)
	}
	if err == nil {
		p.Close()
		t.Fatal("Open restored checkpoint 5 of a pipeline that has none")
	}
	wantRecoveryError(t, err, 5, "no checkpoints")
}

// recoveryFixture is a data dir whose pipeline ran twice: checkpoint 1
// holds batch1, checkpoint 2 (the newest) batch1 and batch2. Every subtest
// works on its own copy.
type recoveryFixture struct {
	base           sumSetup
	batch1, batch2 []sumRecord
	// variant is the module with another hash and the same behaviour,
	// compiled into the fixture's cache so that clones start fast.
	variant string
}

func newRecoveryFixture(t *testing.T) *recoveryFixture {
	t.Helper()
	s := newSumSetup(t, 2)
	s.stateVersion = "1"
	s.checkpoint = "retain = 5"
	fx := &recoveryFixture{base: s, batch1: sumRecords(60, 12, 1), batch2: sumRecords(50, 12, 2), variant: variantModule(t, s.module)}
	cfg := s.load(t)
	runSums(t, cfg, Options{}, fx.batch1)
	runSums(t, cfg, Options{}, fx.batch2)
	if ids, err := checkpoint.List(CheckpointRoot(cfg)); err != nil || len(ids) != 2 || ids[0] != 2 {
		t.Fatalf("fixture checkpoints %v, %v; want [2 1]", ids, err)
	}
	seedCompilationCache(t, s.dataDir, fx.variant)
	return fx
}

// TestRecovery runs the recovery cases on copies of one fixture.
func TestRecovery(t *testing.T) {
	skipInRacePass(t)
	fx := newRecoveryFixture(t)
	for _, c := range []struct {
		name string
		test func(*testing.T, *recoveryFixture)
	}{
		{"refuses damaged checkpoint", testRecoveryRefusesDamagedCheckpoint},
		{"refuses incompatible checkpoint", testRecoveryRefusesIncompatibleCheckpoint},
		{"allows declared operator change", testRecoveryAllowsDeclaredOperatorChange},
		{"refuses changed stream", testRecoveryRefusesChangedStream},
		{"from older checkpoint", testRecoveryFromOlderCheckpoint},
		{"from removed checkpoint", testRecoveryFromRemovedCheckpoint},
		{"empty state with checkpoints", testRecoveryEmptyStateWithCheckpoints},
		{"manifest contents", testManifestContents},
		{"retention keeps the newest", testRetentionKeepsNewest},
		{"rolls back past shared damage", testRecoveryRollsBackPastSharedDamage},
		{"refuses undeclared migration despite flags", testRecoveryRefusesUndeclaredMigrationDespiteFlags},
	} {
		t.Run(c.name, func(t *testing.T) { c.test(t, fx) })
	}
}

// clone copies the fixture's data dir; the copy runs on a fresh port.
func (fx *recoveryFixture) clone(t *testing.T) sumSetup {
	t.Helper()
	s := fx.base
	s.dataDir, s.port = t.TempDir(), testutil.FreePort(t)
	copyDataDir(t, fx.base.dataDir, s.dataDir, fx.base.module, fx.variant)
	return s
}

func (fx *recoveryFixture) all() map[string]int64 { return expectedSums(fx.batch1, fx.batch2) }

// liveDirs are what a refused run must leave untouched: the checkpoints and
// the live state.
func liveDirs(cfg *config.Pipeline) []string {
	return []string{CheckpointRoot(cfg), liveStateDir(cfg.DataDir)}
}

// restoresCleanly runs cfg with no new input and checks that it restored
// checkpoint from (nothing replayed, the state intact).
func restoresCleanly(t *testing.T, cfg *config.Pipeline, opts Options, from uint64, want map[string]int64) {
	t.Helper()
	stats := runSums(t, cfg, opts, nil)
	if stats.Processed != 0 {
		t.Errorf("the restored run processed %d records, want 0 (checkpoint %d is at the end of the input)", stats.Processed, from)
	}
	m := newestCheckpoint(t, cfg)
	if m.Metrics.Recovery == nil || m.Metrics.Recovery.FromCheckpoint != from {
		t.Fatalf("checkpoint %d: recovery %+v, want a restore of checkpoint %d", m.ID, m.Metrics.Recovery, from)
	}
	checkSums(t, cfg, m.ID, want)
}

// Damaged checkpoints stop the run with an error naming the checkpoint and
// the damage; nothing is changed, the older checkpoint still verifies, and
// once the damage is repaired the checkpoint restores.
func testRecoveryRefusesDamagedCheckpoint(t *testing.T, fx *recoveryFixture) {
	cases := []struct {
		name string
		// damage returns the damaged file and its original content.
		damage func(t *testing.T, dir string, m checkpoint.Manifest) (string, []byte)
		cause  []string
	}{
		{"corrupt state file", flipBitInStateFile, []string{"corrupt checkpoint file", "sha256"}},
		{"missing state file", removeStateFile, []string{"checkpoint file missing"}},
		{"truncated manifest", truncateManifest, []string{"corrupt manifest", "chk-00000000000000000002"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := fx.clone(t).load(t)
			dir := checkpoint.Dir(CheckpointRoot(cfg), 2)
			path, original := c.damage(t, dir, readManifest(t, cfg, 2))
			before := treeDigest(t, liveDirs(cfg)...)
			err := openRefused(t, cfg, Options{})
			cause := append(c.cause, "--from-checkpoint 1")
			if rel, _ := filepath.Rel(dir, path); strings.HasPrefix(rel, "state") {
				cause = append(cause, filepath.ToSlash(rel))
			}
			wantRecoveryError(t, err, 2, cause...)
			sameDigest(t, "after the refused run", before, treeDigest(t, liveDirs(cfg)...))
			if err := checkpoint.Verify(CheckpointRoot(cfg), 1); err != nil {
				t.Errorf("checkpoint 1 no longer verifies: %v", err)
			}
			replaceFile(t, path, original)
			restoresCleanly(t, cfg, Options{}, 2, fx.all())
		})
	}
}

// stateFile returns the path of the largest state file of a manifest.
func stateFile(t *testing.T, dir string, m checkpoint.Manifest) string {
	t.Helper()
	var best checkpoint.FileEntry
	for _, f := range m.Files {
		if strings.HasPrefix(f.Path, "state/") && f.Size > best.Size {
			best = f
		}
	}
	if best.Path == "" {
		t.Fatalf("checkpoint %d lists no state file", m.ID)
	}
	return filepath.Join(dir, filepath.FromSlash(best.Path))
}

func flipBitInStateFile(t *testing.T, dir string, m checkpoint.Manifest) (string, []byte) {
	path := stateFile(t, dir, m)
	original, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	damaged := append([]byte(nil), original...)
	damaged[len(damaged)/2] ^= 0x10
	replaceFile(t, path, damaged)
	return path, original
}

func removeStateFile(t *testing.T, dir string, m checkpoint.Manifest) (string, []byte) {
	path := stateFile(t, dir, m)
	original, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	return path, original
}

func truncateManifest(t *testing.T, dir string, _ checkpoint.Manifest) (string, []byte) {
	path := filepath.Join(dir, "MANIFEST.json")
	original, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	replaceFile(t, path, original[:len(original)/2])
	return path, original
}

// A checkpoint whose state this pipeline cannot read (other module, ABI,
// state format or key-group count) stops the run with an error naming the
// checkpoint and the cause; the checkpoint and live state are unchanged and
// the corrected run restores it.
func testRecoveryRefusesIncompatibleCheckpoint(t *testing.T, fx *recoveryFixture) {
	cases := []struct {
		name string
		// change damages the clone s and returns the refused setup; repair
		// returns the setup of the corrected run.
		change func(t *testing.T, s sumSetup) sumSetup
		repair func(t *testing.T, s sumSetup) sumSetup
		cause  []string
	}{
		{
			name: "module changed, no state_version",
			change: func(t *testing.T, s sumSetup) sumSetup {
				s.module, s.stateVersion = fx.variant, ""
				return s
			},
			cause: []string{`operator "sum"`, "module changed", "--allow-operator-change", "state_version"},
		},
		{
			name: "module changed, other state_version",
			change: func(t *testing.T, s sumSetup) sumSetup {
				s.module, s.stateVersion = fx.variant, "2"
				return s
			},
			cause: []string{"module changed"},
		},
		{
			name: "state format version",
			change: func(t *testing.T, s sumSetup) sumSetup {
				editManifest(t, s.load(t), 2, func(m *checkpoint.Manifest) { m.Operators[0].StateFormatVersion = 99 })
				return s
			},
			repair: func(t *testing.T, s sumSetup) sumSetup {
				editManifest(t, s.load(t), 2, func(m *checkpoint.Manifest) { m.Operators[0].StateFormatVersion = state.FormatVersion })
				return s
			},
			cause: []string{"state format v99"},
		},
		{
			name: "ABI version",
			change: func(t *testing.T, s sumSetup) sumSetup {
				editManifest(t, s.load(t), 2, func(m *checkpoint.Manifest) { m.Operators[0].ABIVersion = 99 })
				return s
			},
			repair: func(t *testing.T, s sumSetup) sumSetup {
				editManifest(t, s.load(t), 2, func(m *checkpoint.Manifest) { m.Operators[0].ABIVersion = abi.Version })
				return s
			},
			cause: []string{"ABI v99"},
		},
		{
			name: "max_parallelism",
			change: func(t *testing.T, s sumSetup) sumSetup {
				s.maxParallelism = 64
				return s
			},
			cause: []string{"128 key groups", "max_parallelism is 64"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := fx.clone(t)
			cfg := c.change(t, s).load(t)
			before := treeDigest(t, liveDirs(cfg)...)
			wantRecoveryError(t, openRefused(t, cfg, Options{}), 2, c.cause...)
			sameDigest(t, "after the refused run", before, treeDigest(t, liveDirs(cfg)...))
			if err := checkpoint.Verify(CheckpointRoot(cfg), 2); err != nil {
				t.Errorf("checkpoint 2 no longer verifies: %v", err)
			}
			if c.repair != nil {
				s = c.repair(t, s)
			}
			restoresCleanly(t, s.load(t), Options{}, 2, fx.all())
		})
	}
}

// variantModule writes a copy of the module at path with a custom section
// appended: another module hash (operator version), the same behaviour.
func variantModule(t *testing.T, path string) string {
	t.Helper()
	wasm, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const name = "variant"
	section := append([]byte{0, byte(1 + len(name) + 1), byte(len(name))}, name...)
	section = append(section, 'x')
	out := filepath.Join(t.TempDir(), "variant.wasm")
	if err := os.WriteFile(out, append(wasm, section...), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// Another module restores with the explicit override, or when old and new
// config declare the same state_version; the restored state is then
// updated by the new module.
func testRecoveryAllowsDeclaredOperatorChange(t *testing.T, fx *recoveryFixture) {
	batch3 := sumRecords(30, 12, 3)
	cases := []struct {
		name         string
		stateVersion string
		opts         Options
	}{
		{"allow-operator-change", "", Options{Recovery: RecoveryOptions{AllowOperatorChange: true}}},
		{"same state_version", "1", Options{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := fx.clone(t)
			s.module, s.stateVersion = fx.variant, c.stateVersion
			cfg := s.load(t)
			stats := runSums(t, cfg, c.opts, batch3)
			if stats.Processed != uint64(len(batch3)) {
				t.Errorf("processed %d, want %d", stats.Processed, len(batch3))
			}
			m := newestCheckpoint(t, cfg)
			if m.Metrics.Recovery == nil || m.Metrics.Recovery.FromCheckpoint != 2 {
				t.Fatalf("recovery %+v, want checkpoint 2 restored", m.Metrics.Recovery)
			}
			if m.Operators[0].ModuleSHA256 == readManifest(t, cfg, 2).Operators[0].ModuleSHA256 {
				t.Error("the new checkpoint records the old module hash")
			}
			checkSums(t, cfg, m.ID, expectedSums(fx.batch1, fx.batch2, batch3))
		})
	}
}

// A source whose stream was deleted and created again, or purged past the
// checkpoint's position, stops the run with an error naming the checkpoint
// and the source: never a silent skip. Starting over is the explicit
// EmptyState choice, which then works.
func testRecoveryRefusesChangedStream(t *testing.T, fx *recoveryFixture) {
	cases := []struct {
		name   string
		change func(t *testing.T, cfg *config.Pipeline)
		cause  []string
		// left is how many records EmptyState then finds in the streams.
		left int
	}{
		{"recreated", recreateStreamA, []string{`source "a"`, "recreated"}, countInput(1, fx.batch1, fx.batch2)},
		{"purged", purgeStreamBPastCheckpoint, []string{`source "b"`, "purged", "SUMB"}, countInput(0, fx.batch1, fx.batch2)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := fx.clone(t).load(t)
			c.change(t, cfg)
			before := treeDigest(t, liveDirs(cfg)...)
			wantRecoveryError(t, openRefused(t, cfg, Options{}), 2, c.cause...)
			sameDigest(t, "after the refused run", before, treeDigest(t, liveDirs(cfg)...))
			if err := checkpoint.Verify(CheckpointRoot(cfg), 2); err != nil {
				t.Errorf("checkpoint 2 no longer verifies: %v", err)
			}
			stats := runSums(t, cfg, Options{Recovery: RecoveryOptions{EmptyState: true}}, nil)
			if stats.Processed != uint64(c.left) {
				t.Errorf("the empty-state run processed %d records, want the %d left in the streams", stats.Processed, c.left)
			}
		})
	}
}

func countInput(input int, batches ...[]sumRecord) int {
	n := 0
	for _, b := range batches {
		for _, r := range b {
			if r.input == input {
				n++
			}
		}
	}
	return n
}

func recreateStreamA(t *testing.T, cfg *config.Pipeline) {
	t.Helper()
	c, err := ConnectClient(context.Background(), cfg, hclog.NewNullLogger(), AsControl)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.JS.DeleteStream(context.Background(), "SUMA"); err != nil {
		t.Fatal(err)
	}
	// The next Open creates the declared stream again: a new, empty stream
	// with the same name.
}

// purgeStreamBPastCheckpoint publishes records the checkpoint has not seen
// and purges the stream, so the records after the position are gone.
func purgeStreamBPastCheckpoint(t *testing.T, cfg *config.Pipeline) {
	t.Helper()
	publishSumsStored(t, cfg, []sumRecord{{input: 1, key: "key-1", v: 5}, {input: 1, key: "key-2", v: 6}})
	c, err := ConnectClient(context.Background(), cfg, hclog.NewNullLogger(), AsControl)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st, err := c.JS.Stream(context.Background(), "SUMB")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Purge(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// FromCheckpoint rolls back to an older retained checkpoint: its state and
// positions are used, so the records after it are processed once more and
// counted once.
func testRecoveryFromOlderCheckpoint(t *testing.T, fx *recoveryFixture) {
	cfg := fx.clone(t).load(t)
	stats := runSums(t, cfg, Options{Recovery: RecoveryOptions{FromCheckpoint: 1}}, nil)
	if stats.Processed != uint64(len(fx.batch2)) || stats.Replayed != uint64(len(fx.batch2)) {
		t.Errorf("stats %+v: want batch2's %d records processed and replayed", stats, len(fx.batch2))
	}
	m := newestCheckpoint(t, cfg)
	if m.ID != 3 {
		t.Errorf("new checkpoint id %d, want 3 (ids continue after the newest)", m.ID)
	}
	r := m.Metrics.Recovery
	if r == nil || r.FromCheckpoint != 1 || r.RecordsReplayed != uint64(len(fx.batch2)) || r.DurationNanos <= 0 {
		t.Errorf("recovery metrics %+v: want from 1, %d replayed, a duration", r, len(fx.batch2))
	}
	checkSums(t, cfg, m.ID, fx.all())
	if err := checkpoint.Verify(CheckpointRoot(cfg), 2); err != nil {
		t.Errorf("checkpoint 2 was not kept: %v", err)
	}
}

// FromCheckpoint of an id that is not retained names the retained ones.
func testRecoveryFromRemovedCheckpoint(t *testing.T, fx *recoveryFixture) {
	cfg := fx.clone(t).load(t)
	if removed, err := checkpoint.Retain(CheckpointRoot(cfg), 1); err != nil || len(removed) != 1 {
		t.Fatalf("removing checkpoint 1: %v, %v", removed, err)
	}
	before := treeDigest(t, liveDirs(cfg)...)
	err := openRefused(t, cfg, Options{Recovery: RecoveryOptions{FromCheckpoint: 1}})
	wantRecoveryError(t, err, 1, "not retained", "retained: 2")
	sameDigest(t, "after the refused run", before, treeDigest(t, liveDirs(cfg)...))
}

// EmptyState starts from empty state at the configured start although
// checkpoints exist, and keeps them.
func testRecoveryEmptyStateWithCheckpoints(t *testing.T, fx *recoveryFixture) {
	cfg := fx.clone(t).load(t)
	stats := runSums(t, cfg, Options{Recovery: RecoveryOptions{EmptyState: true}}, nil)
	if n := uint64(len(fx.batch1) + len(fx.batch2)); stats.Processed != n || stats.Replayed != 0 {
		t.Errorf("stats %+v: want all %d records processed from the start, none counted as replayed", stats, n)
	}
	m := newestCheckpoint(t, cfg)
	if m.ID != 3 || m.Metrics.Recovery != nil {
		t.Errorf("checkpoint %d, recovery %+v: want 3 without a restore", m.ID, m.Metrics.Recovery)
	}
	checkSums(t, cfg, m.ID, fx.all())
	for _, id := range []uint64{1, 2} {
		if err := checkpoint.Verify(CheckpointRoot(cfg), id); err != nil {
			t.Errorf("checkpoint %d was not kept: %v", id, err)
		}
	}
}

// Ending Run's context (what SIGINT or SIGTERM does in the CLI) while
// records are in flight is a clean stop: a final checkpoint, no record
// dead-lettered, and the next run restores it and reaches the exact totals.
func TestContextStopTakesFinalCheckpoint(t *testing.T) {
	s := newSumSetup(t, 2)
	cfg := s.load(t)
	recs := sumRecords(5000, 50, 4)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := Open(ctx, cfg, quietOptions(t, Options{StopWhenIdle: -1}))
	if err != nil {
		t.Fatal(err)
	}
	closePipeline := sync.OnceFunc(p.Close)
	defer closePipeline()
	fed := make(chan error, 1)
	go func() {
		err := sendSums(p.Reach(), recs, 0)
		for err == nil && p.Stats().Processed < 500 {
			time.Sleep(time.Millisecond)
		}
		cancel() // the stop, with records still in flight
		fed <- err
	}()
	runErr := p.Run(ctx)
	if err := <-fed; err != nil {
		t.Fatal(err)
	}
	stats := p.Stats()
	closePipeline()
	if runErr != nil {
		t.Fatalf("BUG: a context stop with records in flight failed the run (stats %+v): %v", stats, runErr)
	}
	if stats.Processed == uint64(len(recs)) {
		t.Log("every record was processed before the stop: this run did not test a stop with records in flight")
	}
	if stats.DeadLettered != 0 || stats.Restarts != 0 {
		t.Errorf("stats %+v: a stop must not fault or dead-letter records", stats)
	}
	m := newestCheckpoint(t, cfg)
	if m.Metrics.Recovery != nil {
		t.Fatalf("checkpoint %d is not the stop's final checkpoint", m.ID)
	}
	runSums(t, cfg, Options{}, nil)
	checkSums(t, cfg, newestCheckpoint(t, cfg).ID, expectedSums(recs))
}
