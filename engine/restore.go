package engine

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/wasmstream/wasmstream/checkpoint"
)

// The live state directory is working storage: between checkpoints it may
// hold a mix of tasks' snapshots of the checkpoint in progress. A run never
// trusts it: it is rebuilt from the restored checkpoint, or emptied.
func liveStateDir(dataDir string) string { return filepath.Join(dataDir, "state") }

// prepareLiveState makes the live state directory a copy of the plan's
// checkpoint, or empty when plan is nil. The copy is built beside it and
// renamed into place, so a crash here leaves a directory the next run
// rebuilds again.
func prepareLiveState(dataDir string, plan *restorePlan) error {
	live := liveStateDir(dataDir)
	tmp := live + ".restoring"
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("restore: clear %s: %w", tmp, err)
	}
	if plan != nil {
		src := checkpoint.StateDir(plan.root, plan.manifest.ID)
		if err := copyTree(src, tmp); err != nil {
			return fmt.Errorf("restore checkpoint %d: copy %s to %s: %w", plan.manifest.ID, src, tmp, err)
		}
	}
	if err := os.RemoveAll(live); err != nil {
		return fmt.Errorf("restore: clear %s: %w", live, err)
	}
	if plan == nil {
		return nil
	}
	if err := os.Rename(tmp, live); err != nil {
		return fmt.Errorf("restore checkpoint %d: %w", plan.manifest.ID, err)
	}
	return syncDir(dataDir)
}

// copyTree copies a Pebble checkpoint. Table files (.sst) are immutable and
// hard-linked when possible; everything else (MANIFEST, WAL, OPTIONS) is
// copied because Pebble appends to it.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if strings.HasSuffix(path, ".sst") && os.Link(path, target) == nil {
			return nil
		}
		return copyFile(path, target)
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
