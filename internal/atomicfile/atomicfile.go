// Package atomicfile replaces files atomically and durably: a reader sees
// the old content or the whole new one, also after a crash. The content is
// written to a temporary file in the same directory, fsynced and closed,
// the temporary file is renamed over the target and the directory is
// fsynced.
//
// It works on Pebble's filesystem abstraction (vfs.FS; vfs.Default is the
// operating system's), so a test can inject a fault at every step with
// vfs/errorfs. An error names the path and the step that failed:
//
//	write /data/chk-1/MANIFEST.json: fsync: no space left on device
package atomicfile

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// The steps of a write, as its errors name them.
const (
	stepCreate  = "create temporary file"
	stepMode    = "set mode"
	stepWrite   = "write"
	stepSync    = "fsync"
	stepClose   = "close"
	stepRename  = "rename"
	stepSyncDir = "fsync directory"
)

// Write replaces path with data. perm is the mode of the file as
// os.OpenFile(path, os.O_CREATE, perm) would make it (the umask applies);
// a filesystem other than the operating system's has no modes. On failure
// the temporary file is removed and path is unchanged, unless only the
// final directory fsync failed: then path has the new content, not yet
// durably.
func Write(fs vfs.FS, path string, data []byte, perm os.FileMode) error {
	return WriteFunc(fs, path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, nil)
}

// WriteFunc is Write with the content written by fill, whose error is
// returned as the write step's. beforeRename, when not nil, is called once
// the temporary file is durable, just before the rename: the point a crash
// test stops a process at.
func WriteFunc(fs vfs.FS, path string, perm os.FileMode, fill func(io.Writer) error, beforeRename func()) error {
	tmp := tempName(fs, path)
	step, err := writeTemp(fs, tmp, perm, fill)
	if err == nil {
		if beforeRename != nil {
			beforeRename()
		}
		step, err = stepRename, fs.Rename(tmp, path)
	}
	if err != nil {
		_ = fs.Remove(tmp)
		return fmt.Errorf("write %s: %s: %w", path, step, err)
	}
	if err := syncDir(fs, fs.PathDir(path)); err != nil {
		return fmt.Errorf("write %s: %s: %w", path, stepSyncDir, err)
	}
	return nil
}

// SyncDir fsyncs directory dir, which makes the creations, renames and
// removals of entries in it durable.
func SyncDir(fs vfs.FS, dir string) error {
	if err := syncDir(fs, dir); err != nil {
		return fmt.Errorf("%s %s: %w", stepSyncDir, dir, err)
	}
	return nil
}

func syncDir(fs vfs.FS, dir string) error {
	d, err := fs.OpenDir(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// tempName is a hidden name beside path, unique so that concurrent writers
// of one path (two processes filling a cache) never share a temporary file.
// It ends in ".tmp", so a crash's leftovers are recognisable.
func tempName(fs vfs.FS, path string) string {
	suffix := strconv.FormatUint(rand.Uint64(), 36)
	return fs.PathJoin(fs.PathDir(path), "."+fs.PathBase(path)+"."+suffix+".tmp")
}

// writeTemp creates tmp and fills, fsyncs and closes it; it returns the
// step that failed.
func writeTemp(fs vfs.FS, tmp string, perm os.FileMode, fill func(io.Writer) error) (string, error) {
	f, err := fs.Create(tmp, vfs.WriteCategoryUnspecified)
	if err != nil {
		return stepCreate, err
	}
	step, err := stepMode, restrictMode(fs, tmp, f, perm)
	if err == nil {
		step, err = stepWrite, fill(f)
	}
	if err == nil {
		step, err = stepSync, f.Sync()
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		step, err = stepClose, cerr
	}
	return step, err
}

// restrictMode clears the permission bits perm lacks: vfs creates files
// with 0666 less the umask, os.OpenFile with perm less the umask.
func restrictMode(fs vfs.FS, name string, f vfs.File, perm os.FileMode) error {
	if vfs.Root(fs) != vfs.Default {
		return nil
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if mode := fi.Mode().Perm(); mode&^perm != 0 {
		return os.Chmod(name, mode&perm)
	}
	return nil
}

// IsTempOf reports whether path is a temporary file that Write or
// WriteFunc makes for a file named name in the same directory.
func IsTempOf(path, name string) bool {
	base := filepath.Base(path)
	return strings.HasPrefix(base, "."+name+".") && strings.HasSuffix(base, ".tmp")
}
