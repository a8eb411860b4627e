package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/wasmstream/wasmstream/internal/privatefs"
)

// savepointLock serialises the commands that write or remove savepoints
// under one root. It is separate from the data dir's lock, which a running
// pipeline holds for its whole run: a savepoint of a running pipeline must
// still be possible.
type savepointLock struct{ f *os.File }

// lockSavepoints creates root if needed and waits for its lock. Leftovers
// of interrupted writes and removals are deleted under the lock, where no
// other writer can own them.
func lockSavepoints(root string) (*savepointLock, error) {
	if err := os.MkdirAll(root, privatefs.DirMode); err != nil {
		return nil, fmt.Errorf("savepoints %s: %w", root, err)
	}
	f, err := os.OpenFile(filepath.Join(root, savepointLockFile), os.O_RDWR|os.O_CREATE, privatefs.FileMode)
	if err != nil {
		return nil, fmt.Errorf("savepoints %s: %w", root, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("savepoints %s: lock: %w", root, err)
	}
	l := &savepointLock{f: f}
	if err := removeSavepointLeftovers(root); err != nil {
		l.unlock()
		return nil, fmt.Errorf("savepoints %s: remove leftovers: %w", root, err)
	}
	return l, nil
}

func (l *savepointLock) unlock() { _ = l.f.Close() }

// removeSavepointLeftovers deletes what an interrupted write or removal
// left; only the holder of the lock may call it.
func removeSavepointLeftovers(root string) error {
	entries, err := os.ReadDir(root)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, savepointTemp) || strings.HasPrefix(n, savepointDel) {
			if err := os.RemoveAll(filepath.Join(root, n)); err != nil {
				return err
			}
		}
	}
	return nil
}
