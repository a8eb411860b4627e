package crashtest

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Every world has its own data directory, so each would compile the Go
// guests again (seconds each on a busy 2-core machine). The engine keeps
// wazero's compilation cache in <data_dir>/cache/wazero: the tests collect
// what any run compiled into one shared directory and seed each new data
// directory from it. If the engine moves its cache, seeding just stops
// helping; nothing else depends on it.
var compiled struct {
	mu  sync.Mutex
	dir string // set by TestMain
}

func engineCacheDir(dataDir string) string { return filepath.Join(dataDir, "cache", "wazero") }

// seedCache copies the shared compilation cache into dataDir.
func seedCache(dataDir string) error {
	compiled.mu.Lock()
	defer compiled.mu.Unlock()
	return copyMissing(compiled.dir, engineCacheDir(dataDir))
}

// harvestCache copies what a run compiled into the shared cache.
func harvestCache(dataDir string) error {
	compiled.mu.Lock()
	defer compiled.mu.Unlock()
	return copyMissing(engineCacheDir(dataDir), compiled.dir)
}

// copyMissing copies the files of src that dst lacks. wazero writes a
// cache entry to a .tmp file and renames it, so a killed run can leave
// .tmp files behind: they are skipped.
func copyMissing(src, dst string) error {
	if _, err := os.Stat(src); os.IsNotExist(err) {
		return nil
	}
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if strings.HasSuffix(path, ".tmp") || !d.Type().IsRegular() {
			return nil
		}
		if _, err := os.Stat(target); err == nil {
			return nil
		}
		return copyAtomically(path, target)
	})
}

// copyAtomically copies src to dst through a temporary file, so a reader
// never sees a partial entry.
func copyAtomically(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := dst + ".copy.tmp"
	out, err := os.Create(tmp)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, dst)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}
