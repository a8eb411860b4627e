package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/wasmstream/wasmstream/internal/atomicfile"
	"github.com/wasmstream/wasmstream/internal/privatefs"
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
//
// Write works on the operating system's filesystem; a Writer chooses another.
func Write(root string, db *pebble.DB, m Manifest) (Manifest, error) {
	return Writer{}.Write(root, db, m)
}

// WriteWithHook is Write calling hook (when not nil) at each Step, so that
// crash tests can kill the process at every point of the protocol.
func WriteWithHook(root string, db *pebble.DB, m Manifest, hook func(Step)) (Manifest, error) {
	return Writer{Hook: hook}.Write(root, db, m)
}

// Writer writes checkpoints as Write does, on a filesystem of the caller's
// choice: the seam where tests inject faults (vfs/errorfs). The zero Writer
// is Write.
type Writer struct {
	// FS holds root: the temporary directory, the reading and hashing of the
	// state files, the manifest, the previous checkpoint's manifest, the
	// renames and the directory fsyncs go through it. Nil is vfs.Default.
	// Pebble writes its checkpoint through the DB's own filesystem
	// (pebble.Options.FS, state.Options.FS), so FS must show the files that
	// one writes: the same FS, or one wrapping it.
	FS vfs.FS
	// Hook, when not nil, is called at each Step.
	Hook func(Step)
}

// Write stores checkpoint m.ID of db under root, as the function Write.
func (w Writer) Write(root string, db *pebble.DB, m Manifest) (Manifest, error) {
	w = w.withDefaults()
	final := Dir(root, m.ID)
	if _, err := w.FS.Stat(final); err == nil {
		return Manifest{}, fmt.Errorf("%w: checkpoint %d (%s)", ErrCheckpointExists, m.ID, final)
	}
	if err := w.FS.MkdirAll(root, privatefs.DirMode); err != nil {
		return Manifest{}, fmt.Errorf("checkpoint %d: create root: %w", m.ID, err)
	}
	tmp, err := mkdirTemp(w.FS, root, tempPrefix+strconv.FormatUint(m.ID, 10)+"-")
	if err != nil {
		return Manifest{}, fmt.Errorf("checkpoint %d: %w", m.ID, err)
	}
	m, err = w.writeTemp(root, tmp, db, m)
	if err == nil {
		w.Hook(StepManifestWritten)
		err = w.publish(root, tmp, final)
	}
	if err != nil {
		_ = w.FS.RemoveAll(tmp)
		return Manifest{}, fmt.Errorf("checkpoint %d (%s): %w", m.ID, final, err)
	}
	return m, nil
}

func (w Writer) withDefaults() Writer {
	if w.FS == nil {
		w.FS = vfs.Default
	}
	if w.Hook == nil {
		w.Hook = func(Step) {}
	}
	return w
}

// mkdirTemp creates a new directory named prefix and a random number in
// root, private (0700) as os.MkdirTemp makes it.
func mkdirTemp(fs vfs.FS, root, prefix string) (string, error) {
	for range 100 {
		dir := fs.PathJoin(root, prefix+strconv.FormatUint(rand.Uint64(), 10))
		_, err := fs.Stat(dir)
		if errors.Is(err, os.ErrNotExist) {
			return dir, fs.MkdirAll(dir, privatefs.DirMode)
		}
		if err != nil {
			return "", fmt.Errorf("create temporary directory: %w", err)
		}
	}
	return "", fmt.Errorf("create temporary directory in %s: every name tried exists", root)
}

// writeTemp fills tmp with the state and the manifest.
func (w Writer) writeTemp(root, tmp string, db *pebble.DB, m Manifest) (Manifest, error) {
	// Flush the memtable first: the checkpoint is then table files, which
	// are hard links, plus a near-empty WAL. Without it the WAL holding
	// every write since the last flush is copied into each checkpoint (the
	// bytes new since the previous one would be as large as the memtable)
	// and replayed by every restore.
	if err := db.Flush(); err != nil {
		return m, fmt.Errorf("pebble flush: %w", err)
	}
	if err := db.Checkpoint(w.FS.PathJoin(tmp, stateDir), pebble.WithFlushedWAL()); err != nil {
		return m, fmt.Errorf("pebble checkpoint: %w", err)
	}
	w.Hook(StepStateCopied)
	prev, hasPrev := previous(w.FS, root, m.ID)
	known := linkedHashes{}
	if hasPrev {
		known = linkedHashes{dir: Dir(root, prev.ID), files: prev.Files, onOS: vfs.Root(w.FS) == vfs.Default}
	}
	files, err := hashTree(w.FS, tmp, known)
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
	return m, atomicfile.WriteFunc(w.FS, w.FS.PathJoin(tmp, manifestFile), manifestPerm, func(f io.Writer) error {
		_, err := f.Write(data)
		return err
	}, func() { w.Hook(StepManifestTemp) })
}

// publish moves a finished temporary directory to its final name. Rename
// onto an existing non-empty directory fails, so a concurrent Write of the
// same id cannot replace a checkpoint.
func (w Writer) publish(root, tmp, final string) error {
	if err := w.FS.Rename(tmp, final); err != nil {
		return err
	}
	w.Hook(StepRenamed)
	return atomicfile.SyncDir(w.FS, root)
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
func previous(fs vfs.FS, root string, id uint64) (Manifest, bool) {
	ids, _ := list(fs, root)
	for _, p := range ids {
		if p < id {
			m, err := read(fs, root, p)
			return m, err == nil
		}
	}
	return Manifest{}, false
}

// linkedHashes are the files of the previous checkpoint. A Pebble checkpoint
// hard-links the table files, which Pebble never modifies, so a file that
// is the same inode as the previous checkpoint's file of the same path has
// the hash recorded there: only new files are read. (Verify always reads
// every file, so damage to a shared inode is still detected.) Only the
// operating system's files have inodes to compare (onOS); elsewhere every
// file is read.
type linkedHashes struct {
	dir   string
	files []FileEntry
	onOS  bool
}

func (l linkedHashes) lookup(rel, file string, size int64) (FileEntry, bool) {
	if l.dir == "" || !l.onOS {
		return FileEntry{}, false
	}
	i, found := slices.BinarySearchFunc(l.files, rel, func(f FileEntry, p string) int { return strings.Compare(f.Path, p) })
	if !found || l.files[i].Size != size {
		return FileEntry{}, false
	}
	old, err := os.Stat(filepath.Join(l.dir, filepath.FromSlash(rel)))
	if err != nil {
		return FileEntry{}, false
	}
	cur, err := os.Stat(file)
	if err != nil || !os.SameFile(old, cur) {
		return FileEntry{}, false
	}
	return l.files[i], true
}

// hashTree lists every regular file under dir except the manifest, sorted by
// slash path, with its size and SHA-256.
func hashTree(fs vfs.FS, dir string, known linkedHashes) ([]FileEntry, error) {
	var files []FileEntry
	err := walkFiles(fs, dir, "", func(rel, p string, fi os.FileInfo) error {
		if rel == manifestFile {
			return nil
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("file %s: not a regular file", rel)
		}
		if f, ok := known.lookup(rel, p, fi.Size()); ok {
			files = append(files, f)
			return nil
		}
		size, sum, err := hashFileOn(fs, p)
		files = append(files, FileEntry{Path: rel, Size: size, SHA256: sum})
		return err
	})
	slices.SortFunc(files, func(a, b FileEntry) int { return strings.Compare(a.Path, b.Path) })
	return files, err
}

// walkFiles calls fn for every file below dir/rel that is not a directory,
// with its slash path relative to dir and its name on fs.
func walkFiles(fs vfs.FS, dir, rel string, fn func(rel, file string, fi os.FileInfo) error) error {
	names, err := fs.List(fs.PathJoin(dir, filepath.FromSlash(rel)))
	if err != nil {
		return err
	}
	for _, name := range names {
		r := path.Join(rel, name)
		p := fs.PathJoin(dir, filepath.FromSlash(r))
		fi, err := fs.Stat(p)
		if err != nil {
			return err
		}
		if fi.IsDir() {
			err = walkFiles(fs, dir, r, fn)
		} else {
			err = fn(r, p, fi)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// hashFile returns the length and hex SHA-256 of a file's content.
func hashFile(file string) (int64, string, error) { return hashFileOn(vfs.Default, file) }

func hashFileOn(fs vfs.FS, file string) (int64, string, error) {
	f, err := fs.Open(file)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return n, hex.EncodeToString(h.Sum(nil)), err
}

// manifestPerm is the mode of manifests and savepoint descriptions: they
// name the streams, positions and modules of a pipeline, for its owner only.
const manifestPerm = privatefs.FileMode

// writeFileSync writes dir/name atomically and durably on the operating
// system's filesystem: a reader sees the old state or the whole new file,
// also after a crash.
func writeFileSync(dir, name string, data []byte) error {
	return atomicfile.Write(vfs.Default, filepath.Join(dir, name), data, manifestPerm)
}

// syncDir makes renames and removals in dir durable.
func syncDir(dir string) error { return atomicfile.SyncDir(vfs.Default, dir) }
