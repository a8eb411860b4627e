package recovery

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/wasmstream/wasmstream/internal/privatefs"
)

// CheckpointRoot is the directory of a data dir's checkpoints
// (checkpoint.List, Read, Verify take it as their root).
func CheckpointRoot(dataDir string) string { return filepath.Join(dataDir, "checkpoints") }

// LiveStateDir is the live state: working storage that between
// checkpoints may hold a mix of tasks' snapshots of the checkpoint in
// progress. A run never trusts it: PrepareLiveState rebuilds it.
func LiveStateDir(dataDir string) string { return filepath.Join(dataDir, "state") }

// ErrDataDirInUse: another process runs a pipeline on the same data dir.
var ErrDataDirInUse = errors.New("data dir in use")

// Lock takes an exclusive lock on the data dir for the life of the run:
// recovery rebuilds the live state and deletes leftover checkpoint
// directories, which must never happen under another running pipeline.
// A missing data dir (and its missing parents) is created 0700; an
// existing one keeps its mode (CheckPrivate reports a loose one).
func Lock(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, privatefs.DirMode); err != nil {
		return nil, fmt.Errorf("data dir %s: %w", dir, err)
	}
	path := filepath.Join(dir, "LOCK")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, privatefs.FileMode)
	if err != nil {
		return nil, fmt.Errorf("data dir %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: another wasmstream process holds %s; stop it, or give this pipeline another data_dir", ErrDataDirInUse, path)
		}
		return nil, fmt.Errorf("data dir %s: lock: %w", dir, err)
	}
	return f, nil
}
