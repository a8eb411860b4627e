package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// ErrDataDirInUse: another process runs a pipeline on the same data dir.
var ErrDataDirInUse = errors.New("data dir in use")

// lockDataDir takes an exclusive lock on the data dir for the life of the
// run: recovery rebuilds the live state and deletes leftover checkpoint
// directories, which must never happen under another running pipeline.
func lockDataDir(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("data dir %s: %w", dir, err)
	}
	path := filepath.Join(dir, "LOCK")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
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
