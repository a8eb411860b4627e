package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// A table file hard-linked into the two newest checkpoints is damaged, so
// both fail verification. The refusal suggests the newest checkpoint that
// verifies (2), not the next older one (3, which fails the same way), and
// says why 3 does not do. The rollback to 2 keeps 2 until the run has
// written retain checkpoints of its own: retention removes the skipped,
// damaged 3 and 4 first. (Once the hint said --from-checkpoint 3, and after
// the rollback retention deleted 2 and kept 3 and 4.)
func testRecoveryRollsBackPastSharedDamage(t *testing.T, fx *recoveryFixture) {
	s := fx.clone(t)
	s.checkpoint = "retain = 3"
	cfg := s.load(t)
	root := CheckpointRoot(cfg)
	// One run writes 3 (on demand) and 4 (at the stop): 4 holds 3's table
	// files as hard links.
	batch3, batch4 := sumRecords(40, 12, 3), sumRecords(40, 12, 4)
	if id := runWithOneTrigger(t, cfg, Options{}, batch3); id != 3 {
		t.Fatalf("on-demand checkpoint %d, want 3", id)
	}
	wantRetained(t, root, 4, 3, 2)
	damaged := damageNewest(t, root)
	for _, id := range []uint64{4, 3} {
		if err := checkpoint.Verify(root, id); err == nil {
			t.Fatalf("checkpoint %d still verifies after %s was damaged", id, damaged[id])
		}
	}

	before := treeDigest(t, liveDirs(cfg)...)
	err := openRefused(t, cfg, Options{})
	wantRecoveryError(t, err, 4, damaged[4], "--from-checkpoint 2", "3 fails verification too: corrupt file "+damaged[3])
	if strings.Contains(err.Error(), "--from-checkpoint 3") {
		t.Errorf("the refusal suggests checkpoint 3, which fails verification: %v", err)
	}
	err = openRefused(t, cfg, Options{Recovery: RecoveryOptions{FromCheckpoint: 3}})
	wantRecoveryError(t, err, 3, damaged[3], "--from-checkpoint 2")
	sameDigest(t, "after the refused runs", before, treeDigest(t, liveDirs(cfg)...))

	if id := runWithOneTrigger(t, cfg, Options{Recovery: RecoveryOptions{FromCheckpoint: 2}}, batch4); id != 5 {
		t.Fatalf("on-demand checkpoint %d, want 5", id)
	}
	kept := wantRetained(t, root, 6, 5, 2)
	for _, id := range kept {
		if err := checkpoint.Verify(root, id); err != nil {
			t.Error(err)
		}
	}
	checkSums(t, cfg, 6, expectedSums(fx.batch1, fx.batch2, batch3, batch4))
}

// runWithOneTrigger runs cfg on recs and returns the id of the on-demand
// checkpoint it takes once the first half of recs was processed (so that
// the checkpoint has table files of its own); the run ends with its final
// checkpoint after the second half.
func runWithOneTrigger(t *testing.T, cfg *config.Pipeline, opts Options, recs []sumRecord) uint64 {
	t.Helper()
	var id uint64
	half := len(recs) / 2
	runSumsWith(t, cfg, opts, func(p *Pipeline) error {
		if err := sendSums(p.Reach(), recs[:half], 0); err != nil {
			return err
		}
		for deadline := time.Now().Add(time.Minute); p.Stats().Processed < uint64(half); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				return fmt.Errorf("processed %d of %d records", p.Stats().Processed, half)
			}
		}
		// Records keep arriving, so the run is not idle before the
		// on-demand checkpoint.
		fed := make(chan error, 1)
		go func() { fed <- sendSums(p.Reach(), recs[half:], 25*time.Millisecond) }()
		r, err := p.Trigger(context.Background())
		if err != nil || r.Error != "" {
			return fmt.Errorf("on-demand checkpoint: %+v, %v", r, err)
		}
		id = r.ID
		return <-fed
	})
	return id
}

// wantRetained fails unless root retains exactly ids (newest first).
func wantRetained(t *testing.T, root string, ids ...uint64) []uint64 {
	t.Helper()
	kept, err := checkpoint.List(root)
	if err != nil || !slices.Equal(kept, ids) {
		t.Fatalf("retained %v, %v; want %v", kept, err, ids)
	}
	return kept
}

// damageNewest damages checkpoints 4 and 3 of the run, not 2: a table file
// of 4 that 2 does not have, in place; when it is hard-linked into 3 too
// (the reported case: shared damage) that damages both, otherwise (Pebble
// compacted between them) a table file of 3's own is damaged as well. It
// returns the damaged file of each.
func damageNewest(t *testing.T, root string) map[uint64]string {
	t.Helper()
	f4 := newTableFile(t, root, 4, 2)
	flipBitInPlace(t, filepath.Join(checkpoint.Dir(root, 4), filepath.FromSlash(f4)))
	damaged := map[uint64]string{4: f4, 3: f4}
	if checkpoint.Verify(root, 3) == nil {
		f3 := newTableFile(t, root, 3, 2)
		flipBitInPlace(t, filepath.Join(checkpoint.Dir(root, 3), filepath.FromSlash(f3)))
		damaged[3] = f3
	}
	return damaged
}

// newTableFile returns a table file of checkpoint id that checkpoint older
// does not hold as the same file.
func newTableFile(t *testing.T, root string, id, older uint64) string {
	t.Helper()
	m, err := checkpoint.Read(root, id)
	if err != nil {
		t.Fatal(err)
	}
	stat := func(id uint64, path string) os.FileInfo {
		fi, _ := os.Stat(filepath.Join(checkpoint.Dir(root, id), filepath.FromSlash(path)))
		return fi
	}
	for _, f := range m.Files {
		if !strings.HasSuffix(f.Path, ".sst") {
			continue
		}
		if fi, fo := stat(id, f.Path), stat(older, f.Path); fi != nil && (fo == nil || !os.SameFile(fi, fo)) {
			return f.Path
		}
	}
	t.Fatalf("checkpoint %d has no table file that %d does not have", id, older)
	return ""
}

// flipBitInPlace damages one byte of path in place, so every hard link of
// the file sees the damage (replaceFile would damage one link only).
func flipBitInPlace(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 1)
	at := info.Size() / 2
	if _, err := f.ReadAt(b, at); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0x10
	if _, err := f.WriteAt(b, at); err != nil {
		t.Fatal(err)
	}
}
