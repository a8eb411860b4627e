package engine

import (
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/engine/recovery"
)

// CheckpointRoot is the directory holding a pipeline's checkpoints
// (checkpoint.List, Read, Verify take it as their root).
func CheckpointRoot(cfg *config.Pipeline) string { return recovery.CheckpointRoot(cfg.DataDir) }

// CheckpointRootIn is CheckpointRoot for a data directory.
func CheckpointRootIn(dataDir string) string { return recovery.CheckpointRoot(dataDir) }

// ErrDataDirInUse: another process runs a pipeline on the same data dir.
var ErrDataDirInUse = recovery.ErrDataDirInUse

// ErrRecovery marks a run that refused to start because the checkpoint it
// must restore is damaged or does not fit the pipeline. Nothing was changed.
var ErrRecovery = recovery.ErrRecovery

func liveStateDir(dataDir string) string { return recovery.LiveStateDir(dataDir) }
