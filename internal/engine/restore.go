package engine

import (
	"fmt"
	"os"
	"path/filepath"

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
		if err := checkpoint.RestoreState(plan.root, plan.manifest.ID, tmp); err != nil {
			return fmt.Errorf("restore: %w", err)
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
	return nil
}
