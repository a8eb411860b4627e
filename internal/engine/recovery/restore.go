package recovery

import (
	"fmt"
	"os"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/atomicfile"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// PrepareLiveState makes the live state directory a copy of the plan's
// checkpoint, or empty when plan is nil. The copy is built beside it and
// renamed into place (the rename made durable), so a crash here leaves a
// directory the next run rebuilds again.
func PrepareLiveState(dataDir string, plan *Plan) error {
	live := LiveStateDir(dataDir)
	tmp := live + ".restoring"
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("restore: clear %s: %w", tmp, err)
	}
	if plan != nil {
		if err := checkpoint.RestoreState(plan.Root, plan.Manifest.ID, tmp); err != nil {
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
		return fmt.Errorf("restore checkpoint %d: %w", plan.Manifest.ID, err)
	}
	if err := atomicfile.SyncDir(vfs.Default, dataDir); err != nil {
		return fmt.Errorf("restore checkpoint %d: %w", plan.Manifest.ID, err)
	}
	return nil
}
