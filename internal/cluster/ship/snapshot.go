package ship

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cockroachdb/pebble/v2"
)

// Snapshot is one task checkpoint on local disk, hashed and ready to upload.
type Snapshot struct {
	// Dir is the Pebble checkpoint directory. The caller removes it once
	// uploaded (the files stay hard links of the live DB's until then).
	Dir string
	// Manifest describes it; Upload stores it.
	Manifest TaskManifest
}

// Snapshot takes a Pebble checkpoint of task t of db into dir (which must
// not exist) and hashes its files.
//
// The memtable is flushed first, as checkpoint.Write does: the checkpoint
// is then hard-linked table files plus a near-empty WAL. Without it the WAL
// with every write since the last flush, of every task, would be copied
// into each task's checkpoint and uploaded. The checkpoint is restricted to
// the spans of t (pebble.WithRestrictToSpans): its state key span, the whole
// outbox, the format_version entry and t.MetaNames. Pebble keeps every table
// file that overlaps one of them, so the checkpoint also holds keys of
// other tasks; restores read inside the spans only. The WAL copies are cut
// to their records (trimWALs).
func (s *Shipper) Snapshot(db *pebble.DB, dir string, t Task) (Snapshot, error) {
	t = t.withSortedMeta()
	if err := t.validate(); err != nil {
		return Snapshot{}, err
	}
	if err := s.flush(db); err != nil {
		return Snapshot{}, fmt.Errorf("ship: operator %q range %s: flush the memtable: %w", t.Operator, t.Range, err)
	}
	err := db.Checkpoint(dir, pebble.WithFlushedWAL(), pebble.WithRestrictToSpans(checkpointSpans(spansOf(t))))
	if err != nil {
		return Snapshot{}, fmt.Errorf("ship: operator %q range %s: pebble checkpoint into %s: %w", t.Operator, t.Range, dir, err)
	}
	s.checkpointed(db)
	if err := trimWALs(dir); err != nil {
		return Snapshot{}, fmt.Errorf("ship: operator %q range %s: trim the WAL of checkpoint %s: %w", t.Operator, t.Range, dir, err)
	}
	files, err := s.hashDir(dir)
	if err != nil {
		return Snapshot{}, fmt.Errorf("ship: operator %q range %s: hash checkpoint %s: %w", t.Operator, t.Range, dir, err)
	}
	return Snapshot{Dir: dir, Manifest: newManifest(t, files)}, nil
}

// hashDir lists the files of a flat checkpoint directory, sorted by name,
// with sizes and SHA-256s.
func (s *Shipper) hashDir(dir string) ([]File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []File
	for _, e := range entries {
		if !e.Type().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file; a Pebble checkpoint is flat", e.Name())
		}
		size, sum, err := s.memo.hash(filepath.Join(dir, e.Name()), e.Name())
		if err != nil {
			return nil, err
		}
		files = append(files, File{Path: e.Name(), Size: size, SHA256: sum})
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return files, nil
}

// flush flushes db's memtable unless nothing was written to db since the
// last checkpoint this Shipper took: a flush always rotates the WAL and
// adds a version edit to the MANIFEST, so flushing for every task of
// every checkpoint would make each task checkpoint's MANIFEST new (and
// growing) even when no state changed. The WAL's logical bytes tell.
func (s *Shipper) flush(db *pebble.DB) error {
	in := db.Metrics().WAL.BytesIn
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	if w, ok := s.flushedAt[db]; ok && w.checkpointed == in && in-w.flushed < maxIdleWAL {
		return nil
	}
	if err := db.Flush(); err != nil {
		return err
	}
	if s.flushedAt == nil {
		s.flushedAt = map[*pebble.DB]walMark{}
	}
	s.flushedAt[db] = walMark{checkpointed: in, flushed: in}
	return nil
}

// maxIdleWAL bounds the sync records an idle DB's WAL collects between
// flushes: the WAL copy of every checkpoint carries them all.
const maxIdleWAL = 64 << 10

// walMark is a DB's WAL logical bytes at the last flush and checkpoint.
type walMark struct{ flushed, checkpointed uint64 }

// checkpointed records db's WAL bytes after a checkpoint: WithFlushedWAL
// writes an empty log record to sync the WAL, which must not count as a
// write. A write that raced with the checkpoint is then not flushed by the
// next Snapshot, but its WAL record is in the next checkpoint's WAL copy,
// which a restore replays: only the flush, an optimisation, is skipped.
func (s *Shipper) checkpointed(db *pebble.DB) {
	in := db.Metrics().WAL.BytesIn
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	w := s.flushedAt[db]
	w.checkpointed = in
	if s.flushedAt == nil {
		s.flushedAt = map[*pebble.DB]walMark{}
	}
	s.flushedAt[db] = w
}
