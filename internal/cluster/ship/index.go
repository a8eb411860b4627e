package ship

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/wasmstream/wasmstream/internal/privatefs"
)

// The local index records which objects the bucket holds, one empty file
// per SHA-256 in Options.IndexDir, written after the object was stored or
// found. It is a cache of the bucket's content, never the truth: a lost
// entry costs one GetInfo, and Forget drops an entry whose object is gone
// (a GC that deleted it, a recreated bucket).

// indexed reports whether the index says the bucket holds sha256.
func (s *Shipper) indexed(sha256 string) bool {
	if s.opts.IndexDir == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(s.opts.IndexDir, sha256))
	return err == nil
}

// addIndex records that the bucket holds sha256. Not synced: an entry lost
// in a crash is looked up again.
func (s *Shipper) addIndex(sha256 string) error {
	if s.opts.IndexDir == "" {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(s.opts.IndexDir, sha256), os.O_CREATE|os.O_WRONLY, privatefs.FileMode)
	if err != nil {
		return err
	}
	return f.Close()
}

// Forget removes sha256 from the local index, so that the next Upload of
// a file with that content looks in the bucket again. Whoever deletes an
// object the index may list (GC) calls it on every worker's index, or
// those workers would skip uploading a file the bucket no longer has.
func (s *Shipper) Forget(sha256 string) error {
	if s.opts.IndexDir == "" || !isSHA256Hex(sha256) {
		return nil
	}
	err := os.Remove(filepath.Join(s.opts.IndexDir, sha256))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
