package checkpoint

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/wasmstream/wasmstream/internal/privatefs"
)

// RestoreState copies the Pebble state of checkpoint id under root to dst,
// which must not exist, and makes the copy durable. Table files (.sst) are
// immutable and hard-linked when possible; everything else (MANIFEST, WAL,
// OPTIONS) is copied because Pebble appends to it. Directories are made
// 0700 and copies 0600; a link is the checkpoint's file, with its mode.
// Verify the checkpoint first: RestoreState does not check hashes.
func RestoreState(root string, id uint64, dst string) error {
	src := StateDir(root, id)
	if err := copyTree(src, dst); err != nil {
		return fmt.Errorf("checkpoint %d: copy %s to %s: %w", id, src, dst, err)
	}
	return syncDir(filepath.Dir(dst))
}

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
			return os.MkdirAll(target, privatefs.DirMode)
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
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, privatefs.FileMode)
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
