package plugins

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/wasmstream/wasmstream/internal/atomicfile"
	"github.com/wasmstream/wasmstream/internal/privatefs"
)

// Fetch turns a registry reference into a local file: it resolves ref and
// returns <cacheDir>/<HASH>.wasm, downloading the version when that file is
// missing or does not hash to its name (a damaged file is replaced, never
// returned). The file is written to a temporary name, synced and renamed,
// so a crash leaves either no file or a whole one. A local path is
// ErrLocalRef: the caller uses the path as it is.
func (r *Registry) Fetch(ctx context.Context, ref Ref, cacheDir string) (string, Entry, error) {
	e, obs, err := r.resolve(ctx, ref)
	if err != nil {
		return "", Entry{}, err
	}
	path := CachePath(cacheDir, e.Hash)
	switch ok, err := cachedFileValid(path, e.Hash); {
	case ok:
		return path, e, nil
	case err != nil:
		r.opts.Logger.Warn("replacing a damaged cached module", "path", path, "operator", e.String(), "reason", err)
	}
	b, err := r.download(ctx, obs, e)
	if err != nil {
		return "", Entry{}, err
	}
	if err := writeFileAtomic(path, b); err != nil {
		return "", Entry{}, fmt.Errorf("module cache %s: %w", cacheDir, err)
	}
	return path, e, nil
}

// CachePath is where Fetch keeps the version hash in cacheDir.
func CachePath(cacheDir, hash string) string {
	return filepath.Join(cacheDir, hash+".wasm")
}

// cachedFileValid reports whether path holds bytes whose SHA-256 is hash. A
// missing file is (false, nil); a damaged or unreadable one (false, reason).
func cachedFileValid(path, hash string) (bool, error) {
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	}
	if got := HashBytes(b); got != hash {
		return false, fmt.Errorf("its %d bytes hash to %s", len(b), got)
	}
	return true, nil
}

// writeFileAtomic writes b to path through a synced temporary file in the
// same directory, renamed over path, and syncs the directory. The cache is
// the pipeline's code: its directories are 0700 and its files 0600, so no
// other local user can replace a module (or read one).
func writeFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), privatefs.DirMode); err != nil {
		return err
	}
	return atomicfile.Write(vfs.Default, path, b, privatefs.FileMode)
}
