package engine

import (
	"path/filepath"

	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// CheckpointRoot is the directory holding a pipeline's checkpoints
// (checkpoint.List, Read, Verify take it as their root).
func CheckpointRoot(cfg *config.Pipeline) string {
	return CheckpointRootIn(cfg.DataDir)
}

// CheckpointRootIn is CheckpointRoot for a data directory.
func CheckpointRootIn(dataDir string) string {
	return filepath.Join(dataDir, "checkpoints")
}
