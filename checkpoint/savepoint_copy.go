package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/wasmstream/wasmstream/internal/privatefs"
)

// copyListed copies the listed files of a checkpoint from src to dst. Table
// files (.sst) are hard-linked when possible: neither Pebble nor this
// package ever writes to one after it is created, so a link is as good as a
// copy and costs nothing. Everything else is copied and synced.
func copyListed(src, dst string, files []FileEntry) error {
	for _, f := range files {
		from := filepath.Join(src, filepath.FromSlash(f.Path))
		to := filepath.Join(dst, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(to), privatefs.DirMode); err != nil {
			return err
		}
		if strings.HasSuffix(f.Path, ".sst") && os.Link(from, to) == nil {
			continue
		}
		if err := copyFile(from, to); err != nil {
			return fmt.Errorf("file %s: %w", f.Path, err)
		}
	}
	return nil
}

// verifyListed checks every listed file under dir (size and SHA-256) and
// returns all mismatches joined, each naming its file.
func verifyListed(dir string, files []FileEntry) error {
	var errs []error
	for _, f := range files {
		if err := verifyFile(dir, f); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// syncTree fsyncs every directory under dir, deepest first, so the names of
// the files (already synced one by one) survive a crash before dir is
// renamed into place.
func syncTree(dir string) error {
	var dirs []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return err
	})
	for i := len(dirs) - 1; i >= 0 && err == nil; i-- {
		err = syncDir(dirs[i])
	}
	return err
}

// renameIntoPlace moves a finished temporary directory to its final name
// and syncs the parent. Rename onto an existing non-empty directory fails,
// so nothing complete is ever replaced.
func renameIntoPlace(tmp, final string) error {
	if err := syncTree(tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		return err
	}
	return syncDir(filepath.Dir(final))
}
