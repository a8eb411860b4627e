package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// ErrCheckpointExists: Write was asked for an id that is already on disk.
// Checkpoint ids must increase; a reused id would overwrite a cut.
var ErrCheckpointExists = errors.New("checkpoint: checkpoint already exists")

// Write stores checkpoint m.ID of db under root and returns the manifest as
// written. The caller fills ID, Created, Sources, Operators, Config and the
// duration metrics; Write fills FormatVersion, Files, the byte metrics and
// Completed (if zero).
//
// Everything is built in a temporary directory: the Pebble checkpoint (with
// the WAL flushed, so NoSync writes are in it), then the manifest (write,
// fsync, rename, fsync). Only then is the directory renamed into place and
// root fsynced. A crash at any point leaves either no checkpoint m.ID or a
// complete one, never a partial one under its final name.
func Write(root string, db *pebble.DB, m Manifest) (Manifest, error) {
	return WriteWithHook(root, db, m, nil)
}

// WriteWithHook is Write calling hook (when not nil) at each Step, so that
// crash tests can kill the process at every point of the protocol.
func WriteWithHook(root string, db *pebble.DB, m Manifest, hook func(Step)) (Manifest, error) {
	if hook == nil {
		hook = func(Step) {}
	}
	final := Dir(root, m.ID)
	if _, err := os.Stat(final); err == nil {
		return Manifest{}, fmt.Errorf("%w: checkpoint %d (%s)", ErrCheckpointExists, m.ID, final)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return Manifest{}, fmt.Errorf("checkpoint %d: create root: %w", m.ID, err)
	}
	tmp, err := os.MkdirTemp(root, tempPrefix+strconv.FormatUint(m.ID, 10)+"-")
	if err != nil {
		return Manifest{}, fmt.Errorf("checkpoint %d: %w", m.ID, err)
	}
	m, err = writeTemp(root, tmp, db, m, hook)
	if err == nil {
		hook(StepManifestWritten)
		err = publish(root, tmp, final, hook)
	}
	if err != nil {
		_ = os.RemoveAll(tmp)
		return Manifest{}, fmt.Errorf("checkpoint %d (%s): %w", m.ID, final, err)
	}
	return m, nil
}

// writeTemp fills tmp with the state and the manifest.
func writeTemp(root, tmp string, db *pebble.DB, m Manifest, hook func(Step)) (Manifest, error) {
	// Flush the memtable first: the checkpoint is then table files, which
	// are hard links, plus a near-empty WAL. Without it the WAL holding
	// every write since the last flush is copied into each checkpoint (the
	// bytes new since the previous one would be as large as the memtable)
	// and replayed by every restore.
	if err := db.Flush(); err != nil {
		return m, fmt.Errorf("pebble flush: %w", err)
	}
	if err := db.Checkpoint(filepath.Join(tmp, stateDir), pebble.WithFlushedWAL()); err != nil {
		return m, fmt.Errorf("pebble checkpoint: %w", err)
	}
	hook(StepStateCopied)
	prev, hasPrev := previous(root, m.ID)
	known := linkedHashes{}
	if hasPrev {
		known = linkedHashes{dir: Dir(root, prev.ID), files: prev.Files}
	}
	files, err := hashTree(tmp, known)
	if err != nil {
		return m, err
	}
	m.FormatVersion = ManifestFormatVersion
	m.Files = files
	if m.Completed.IsZero() {
		m.Completed = time.Now().UTC()
	}
	if m.Metrics.DurationNanos == 0 {
		m.Metrics.DurationNanos = max(int64(m.Completed.Sub(m.Created)), 0)
	}
	m.Metrics.BytesTotal, m.Metrics.BytesNew = byteMetrics(prev, hasPrev, files)
	m, data, err := encodeSummed(m)
	if err != nil {
		return m, err
	}
	return m, writeFileSyncHook(tmp, manifestFile, data, func() { hook(StepManifestTemp) })
}

// publish moves a finished temporary directory to its final name. Rename
// onto an existing non-empty directory fails, so a concurrent Write of the
// same id cannot replace a checkpoint.
func publish(root, tmp, final string, hook func(Step)) error {
	if err := os.Rename(tmp, final); err != nil {
		return err
	}
	hook(StepRenamed)
	return syncDir(root)
}

// byteMetrics returns the total size of files and the size of those the
// previous checkpoint lacks. Pebble's SST names are never reused, so the
// same path and hash means a hard-linked, unchanged file.
func byteMetrics(m Manifest, ok bool, files []FileEntry) (total, fresh int64) {
	prev := map[FileEntry]bool{}
	if ok {
		for _, f := range m.Files {
			prev[f] = true
		}
	}
	for _, f := range files {
		total += f.Size
		if !prev[f] {
			fresh += f.Size
		}
	}
	return total, fresh
}

// previous returns the manifest of the newest readable checkpoint before id.
// Metrics only: an unreadable one just counts all bytes as new.
func previous(root string, id uint64) (Manifest, bool) {
	ids, _ := List(root)
	for _, p := range ids {
		if p < id {
			m, err := Read(root, p)
			return m, err == nil
		}
	}
	return Manifest{}, false
}

// linkedHashes are the files of the previous checkpoint. A Pebble checkpoint
// hard-links the table files, which Pebble never modifies, so a file that
// is the same inode as the previous checkpoint's file of the same path has
// the hash recorded there: only new files are read. (Verify always reads
// every file, so damage to a shared inode is still detected.)
type linkedHashes struct {
	dir   string
	files []FileEntry
}

func (l linkedHashes) lookup(rel string, fi fs.FileInfo) (FileEntry, bool) {
	if l.dir == "" {
		return FileEntry{}, false
	}
	i, found := slices.BinarySearchFunc(l.files, rel, func(f FileEntry, p string) int { return strings.Compare(f.Path, p) })
	if !found || l.files[i].Size != fi.Size() {
		return FileEntry{}, false
	}
	old, err := os.Stat(filepath.Join(l.dir, filepath.FromSlash(rel)))
	if err != nil || !os.SameFile(old, fi) {
		return FileEntry{}, false
	}
	return l.files[i], true
}

// hashTree lists every regular file under dir except the manifest, sorted by
// slash path, with its size and SHA-256.
func hashTree(dir string, known linkedHashes) ([]FileEntry, error) {
	var files []FileEntry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == manifestFile {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("file %s: not a regular file", rel)
		}
		if fi, err := d.Info(); err == nil {
			if f, ok := known.lookup(rel, fi); ok {
				files = append(files, f)
				return nil
			}
		}
		size, sum, err := hashFile(p)
		files = append(files, FileEntry{Path: rel, Size: size, SHA256: sum})
		return err
	})
	return files, err
}

// hashFile returns the length and hex SHA-256 of a file's content.
func hashFile(path string) (int64, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return n, hex.EncodeToString(h.Sum(nil)), err
}

// writeFileSync writes dir/name atomically and durably: a reader sees the
// old state or the whole new file, also after a crash.
func writeFileSync(dir, name string, data []byte) error {
	return writeFileSyncHook(dir, name, data, func() {})
}

// writeFileSyncHook is writeFileSync calling beforeRename once the
// temporary file is durable.
func writeFileSyncHook(dir, name string, data []byte, beforeRename func()) error {
	tmp := filepath.Join(dir, name+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		beforeRename()
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", name, err)
	}
	return syncDir(dir)
}

// syncDir makes renames and removals in dir durable.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
