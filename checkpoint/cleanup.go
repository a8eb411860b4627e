package checkpoint

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// RemoveLeftovers deletes what an interrupted Write (temporary directories)
// or Retain (directories being removed) left under root, and returns their
// names. Only the process that owns root may call it: a concurrent Write's
// temporary directory would be deleted too. Completed checkpoints are never
// touched.
func RemoveLeftovers(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, tempPrefix) && !strings.HasPrefix(name, delPrefix) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(root, name)); err != nil {
			return removed, err
		}
		removed = append(removed, name)
	}
	return removed, nil
}
