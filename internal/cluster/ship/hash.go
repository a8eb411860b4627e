package ship

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"strings"
	"sync"
)

// hashMemo remembers the SHA-256 of table files hashed before. A Pebble
// checkpoint hard-links the table files, which Pebble never modifies, so a
// file that is the same inode, size and modification time as one hashed
// earlier under the same name has the same hash: a checkpoint of unchanged
// state reads only its small MANIFEST, OPTIONS and WAL files (checkpoint/
// does the same through the previous checkpoint, FORMAT.md change log 2).
// Only ".sst" files are remembered; the others are rewritten per
// checkpoint. Restores and Verify always hash what they read.
type hashMemo struct {
	mu    sync.Mutex
	files map[string]memoEntry // by file name
}

type memoEntry struct {
	info   os.FileInfo
	sha256 string
}

// hash returns the size and hex SHA-256 of file, from the memo when the
// same inode was hashed before.
func (m *hashMemo) hash(file, name string) (int64, string, error) {
	fi, err := os.Stat(file)
	if err != nil {
		return 0, "", err
	}
	if sum, ok := m.lookup(name, fi); ok {
		return fi.Size(), sum, nil
	}
	size, sum, err := hashFile(file)
	if err == nil && strings.HasSuffix(name, ".sst") && size == fi.Size() {
		m.remember(name, fi, sum)
	}
	return size, sum, err
}

func (m *hashMemo) lookup(name string, fi os.FileInfo) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.files[name]
	if !ok || !os.SameFile(e.info, fi) || e.info.Size() != fi.Size() || !e.info.ModTime().Equal(fi.ModTime()) {
		return "", false
	}
	return e.sha256, true
}

// memoLimit bounds the memo; past it, it starts over (a worker's live
// table files are far fewer).
const memoLimit = 1 << 16

func (m *hashMemo) remember(name string, fi os.FileInfo, sum string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.files) >= memoLimit {
		clear(m.files)
	}
	m.files[name] = memoEntry{info: fi, sha256: sum}
}

// hashFile returns the length and hex SHA-256 of a file's content.
func hashFile(file string) (int64, string, error) {
	f, err := os.Open(file)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return n, hex.EncodeToString(h.Sum(nil)), err
}
