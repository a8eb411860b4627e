package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/state"
)

// The manifest tests run as part of TestRecovery, on copies of its fixture.

// A checkpoint's manifest records the cut and everything a restore checks:
// positions with the stream identity, the module hash, ABI and state
// format versions, key-group ranges, verified files, the config text, and
// the restore the run started from.
func testManifestContents(t *testing.T, fx *recoveryFixture) {
	cfg := fx.clone(t).load(t)
	m1, m := readManifest(t, cfg, 1), readManifest(t, cfg, 2)
	if m.ID != 2 || m.Created.IsZero() || m.Completed.Before(m.Created) || m.Created.Before(m1.Completed) {
		t.Errorf("checkpoint 2: id %d, created %v, completed %v (checkpoint 1 completed %v)", m.ID, m.Created, m.Completed, m1.Completed)
	}
	checkManifestSources(t, cfg, m1, countInput(0, fx.batch1), countInput(1, fx.batch1))
	checkManifestSources(t, cfg, m, countInput(0, fx.batch1, fx.batch2), countInput(1, fx.batch1, fx.batch2))
	checkManifestOperator(t, m, fx.base.module, 2)
	checkManifestFiles(t, cfg, m)
	base := fx.base.load(t)
	text, err := os.ReadFile(filepath.Join(base.Dir, "pipeline.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Config != string(text) {
		t.Errorf("manifest config text differs from the config file:\n%s\nwant:\n%s", m.Config, text)
	}
	if m.Metrics.Mode != "aligned" || m.Metrics.DurationNanos < 0 || m1.Metrics.Recovery != nil {
		t.Errorf("metrics %+v, checkpoint 1 recovery %+v: want aligned, and no restore before checkpoint 1", m.Metrics, m1.Metrics.Recovery)
	}
	if r := m.Metrics.Recovery; r == nil || r.FromCheckpoint != 1 || r.RecordsReplayed != 0 || r.DurationNanos <= 0 {
		t.Errorf("checkpoint 2 recovery %+v: want a restore of 1 that replayed nothing", r)
	}
}

// checkManifestSources checks the positions of sources a and b and that
// each names its stream by its creation time.
func checkManifestSources(t *testing.T, cfg *config.Pipeline, m checkpoint.Manifest, lastA, lastB int) {
	t.Helper()
	c, err := ConnectClient(context.Background(), cfg, hclog.NewNullLogger(), AsControl)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	want := map[string]struct {
		stream string
		last   int
	}{"a": {"SUMA", lastA}, "b": {"SUMB", lastB}}
	if len(m.Sources) != len(want) {
		t.Fatalf("checkpoint %d sources %+v", m.ID, m.Sources)
	}
	for _, src := range m.Sources {
		w := want[src.Name]
		st, err := c.JS.Stream(context.Background(), w.stream)
		if err != nil {
			t.Fatal(err)
		}
		created := st.CachedInfo().Created
		if src.Stream != w.stream || src.LastSequence != uint64(w.last) || !src.StreamCreated.Equal(created) {
			t.Errorf("checkpoint %d source %+v: want stream %s created %v, last sequence %d", m.ID, src, w.stream, created, w.last)
		}
	}
}

func checkManifestOperator(t *testing.T, m checkpoint.Manifest, module string, parallelism int) {
	t.Helper()
	if len(m.Operators) != 1 {
		t.Fatalf("operators %+v", m.Operators)
	}
	op := m.Operators[0]
	wasm, err := os.ReadFile(module)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(wasm)
	if op.Name != "sum" || op.ModuleSHA256 != hex.EncodeToString(sum[:]) || op.ABIVersion != abi.Version ||
		op.StateFormatVersion != state.FormatVersion || op.MaxParallelism != 128 || op.StateVersion != "1" {
		t.Errorf("operator entry %+v: want sum, sha256 %x, ABI %d, state format %d, 128 key groups, state_version 1",
			op, sum, abi.Version, state.FormatVersion)
	}
	checkTaskRanges(t, m, parallelism)
	for i, task := range op.Tasks {
		for _, src := range m.Sources {
			if task.Unaligned || task.Inputs[src.Name] != src.LastSequence {
				t.Errorf("task %d %+v: want aligned at %s's position %d", i, task, src.Name, src.LastSequence)
			}
		}
	}
}

// checkTaskRanges checks that the tasks' key-group ranges partition
// [0, max_parallelism) in order.
func checkTaskRanges(t *testing.T, m checkpoint.Manifest, parallelism int) {
	t.Helper()
	op := m.Operators[0]
	if len(op.Tasks) != parallelism {
		t.Fatalf("checkpoint %d has %d tasks, want %d", m.ID, len(op.Tasks), parallelism)
	}
	next := 0
	for i, task := range op.Tasks {
		if task.Start != next || task.End <= task.Start {
			t.Errorf("checkpoint %d task %d range [%d,%d), want it to start at %d", m.ID, i, task.Start, task.End, next)
		}
		next = task.End
	}
	if next != op.MaxParallelism {
		t.Errorf("checkpoint %d: ranges end at %d, want %d", m.ID, next, op.MaxParallelism)
	}
}

// checkManifestFiles recomputes every listed file's size and SHA-256.
func checkManifestFiles(t *testing.T, cfg *config.Pipeline, m checkpoint.Manifest) {
	t.Helper()
	dir := checkpoint.Dir(CheckpointRoot(cfg), m.ID)
	var total int64
	for _, f := range m.Files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if int64(len(b)) != f.Size || hex.EncodeToString(sum[:]) != f.SHA256 {
			t.Errorf("file %s: %d bytes sha256 %x, manifest says %d bytes %s", f.Path, len(b), sum, f.Size, f.SHA256)
		}
		total += f.Size
	}
	if len(m.Files) == 0 || total != m.Metrics.BytesTotal {
		t.Errorf("%d files of %d bytes, metrics say %d bytes", len(m.Files), total, m.Metrics.BytesTotal)
	}
	if err := checkpoint.Verify(CheckpointRoot(cfg), m.ID); err != nil {
		t.Error(err)
	}
}

// Retention keeps the newest retain checkpoints (from the config's
// checkpoint block) and removes the rest.
func testRetentionKeepsNewest(t *testing.T, fx *recoveryFixture) {
	s := fx.clone(t)
	s.checkpoint = "retain = 2"
	cfg := s.load(t)
	var ids []uint64
	runSumsWith(t, cfg, Options{}, func(p *Pipeline) error {
		// Records keep arriving meanwhile, so the run is not idle before
		// the last on-demand checkpoint.
		fed := make(chan error, 1)
		go func() { fed <- sendSums(p.Reach(), sumRecords(40, 12, 3), 25*time.Millisecond) }()
		for range 3 {
			r, err := p.Trigger(context.Background())
			if err != nil || r.Error != "" {
				return fmt.Errorf("on-demand checkpoint: %+v, %v", r, err)
			}
			ids = append(ids, r.ID)
		}
		return <-fed
	})
	if fmt.Sprint(ids) != "[3 4 5]" {
		t.Errorf("on-demand checkpoints %v, want [3 4 5]", ids)
	}
	kept, err := checkpoint.List(CheckpointRoot(cfg))
	if err != nil || fmt.Sprint(kept) != "[6 5]" {
		t.Fatalf("kept %v, %v; want the newest two, [6 5] (6 is the final checkpoint)", kept, err)
	}
	for _, id := range kept {
		if err := checkpoint.Verify(CheckpointRoot(cfg), id); err != nil {
			t.Error(err)
		}
	}
}
