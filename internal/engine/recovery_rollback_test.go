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
	file := sharedTableFile(t, root, 4, 3, 2)
	flipBitInPlace(t, filepath.Join(checkpoint.Dir(root, 4), filepath.FromSlash(file)))
	for _, id := range []uint64{4, 3} {
		if err := checkpoint.Verify(root, id); err == nil {
			t.Fatalf("checkpoint %d still verifies after its shared %s was damaged", id, file)
		}
	}

	before := treeDigest(t, liveDirs(cfg)...)
	err := openRefused(t, cfg, Options{})
	wantRecoveryError(t, err, 4, file, "--from-checkpoint 2", "3 fails verification too: corrupt file "+file)
	if strings.Contains(err.Error(), "--from-checkpoint 3") {
		t.Errorf("the refusal suggests checkpoint 3, which fails verification: %v", err)
	}
	err = openRefused(t, cfg, Options{Recovery: RecoveryOptions{FromCheckpoint: 3}})
	wantRecoveryError(t, err, 3, file, "--from-checkpoint 2")
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
		if err := sendSums(p.ClientURL(), recs[:half], 0); err != nil {
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
		go func() { fed <- sendSums(p.ClientURL(), recs[half:], 25*time.Millisecond) }()
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

// sharedTableFile returns the path (as the manifests name it) of a table
// file that checkpoints a and b share by hard link and older does not.
func sharedTableFile(t *testing.T, root string, a, b, older uint64) string {
	t.Helper()
	m, err := checkpoint.Read(root, a)
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
		fa, fb, fo := stat(a, f.Path), stat(b, f.Path), stat(older, f.Path)
		if fa != nil && fb != nil && os.SameFile(fa, fb) && (fo == nil || !os.SameFile(fa, fo)) {
			return f.Path
		}
	}
	t.Fatalf("checkpoints %d and %d share no table file that %d does not have", a, b, older)
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
