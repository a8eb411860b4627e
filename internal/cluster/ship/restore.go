package ship

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/internal/state"
)

// Target is where a Restore writes: the key groups Range of Operator in
// the live DB of a worker.
type Target struct {
	DB             *pebble.DB
	Operator       string
	MaxParallelism int
	Range          state.KeyGroupRange
	// Replace deletes the state already in Range first. Without it a Range
	// holding state is refused (ErrTargetNotEmpty). Set it to retry a
	// restore that failed halfway: its batches are not one transaction.
	Replace bool
}

// MetaValue is a metadata entry found in one task checkpoint.
type MetaValue struct {
	Name  string
	Value []byte
	// From is the key-group range of the task checkpoint it came from.
	From state.KeyGroupRange
}

// RestoreResult reports what a Restore imported.
type RestoreResult struct {
	// Checkpoints is the number of task checkpoints read.
	Checkpoints int
	// Keys and Bytes count the state entries written (key plus value bytes).
	Keys, Bytes int64
	// OutboxKeys and OutboxBytes count the staged outputs written.
	OutboxKeys, OutboxBytes int64
	// Downloaded is the bytes fetched from the bucket (the rest came from
	// the cache).
	Downloaded int64
	// Meta holds the Task.MetaNames entries of every task checkpoint read,
	// in manifest order. They are per operator, so Restore does not write
	// them: the caller merges them with its own (the dead-letter lists are
	// a union, design §5.4 step 5) and commits the result.
	Meta []MetaValue
}

// Restore imports the state of target.Range from the task checkpoints of
// manifests into target.DB (design §5.4, "Restore of range R").
//
// manifests may be every task manifest of a checkpoint: those of other
// operators, or outside the range, are not read. The ones that overlap
// the range must give each of its key groups exactly once (ErrNotCovered);
// the range may be a part of one task's range (a scale-out) or span
// several (a merge). Each is downloaded into the cache (every object's
// SHA-256 checked: a mismatch is ErrDamaged naming the object), opened
// read-only in a temporary directory, and only its keys inside the range
// are copied, in batches; the last batch is synced.
//
// The staged outputs of an old task are imported by the restore whose range
// holds that task's first key group, so exactly one new owner publishes
// them (design §5.4 step 6). They keep their keys: an (epoch, operator,
// task) is written by one task only, so they meet no other output's key.
func (s *Shipper) Restore(ctx context.Context, manifests []TaskManifest, target Target) (RestoreResult, error) {
	if err := s.validTarget(target); err != nil {
		return RestoreResult{}, err
	}
	parts, err := cover(manifests, target)
	if err != nil {
		return RestoreResult{}, err
	}
	res := RestoreResult{Checkpoints: len(parts)}
	// Everything is downloaded and verified before the target is touched:
	// a damaged or missing object leaves it as it was, Replace or not.
	files, err := s.fetchAll(ctx, parts, &res)
	if err != nil {
		return res, err
	}
	if err := prepareTarget(target); err != nil {
		return res, err
	}
	im := newImporter(target.DB, s.opts.BatchBytes)
	defer im.close()
	for _, m := range parts {
		if err := s.restoreOne(m, files, target, im, &res); err != nil {
			return res, fmt.Errorf("restore operator %q range %s from task checkpoint %s: %w", target.Operator, target.Range, m.Range(), err)
		}
	}
	res.Keys, res.Bytes, res.OutboxKeys, res.OutboxBytes = im.keys, im.bytes, im.outboxKeys, im.outboxBytes
	return res, im.finish()
}

func (s *Shipper) validTarget(t Target) error {
	switch {
	case s.opts.CacheDir == "":
		return fmt.Errorf("%w: Restore needs Options.CacheDir", ErrInvalid)
	case t.DB == nil:
		return fmt.Errorf("%w: Restore needs a target DB", ErrInvalid)
	}
	return Task{Operator: t.Operator, MaxParallelism: t.MaxParallelism, Range: t.Range}.validate()
}

// prepareTarget clears the target range (Replace) or checks it is empty.
func prepareTarget(t Target) error {
	span := stateSpan(t.Operator, t.Range.Start, t.Range.End)
	if t.Replace {
		if err := t.DB.DeleteRange(span.start, span.end, pebble.Sync); err != nil {
			return fmt.Errorf("ship: clear operator %q range %s in the target DB: %w", t.Operator, t.Range, err)
		}
		return nil
	}
	it, err := t.DB.NewIter(&pebble.IterOptions{LowerBound: span.start, UpperBound: span.end})
	if err != nil {
		return err
	}
	found := it.First()
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return err
	}
	if found {
		return fmt.Errorf("%w: operator %q range %s already has state in the target DB; delete the released span (or set Target.Replace to overwrite it)",
			ErrTargetNotEmpty, t.Operator, t.Range)
	}
	return nil
}

// fetchAll makes the cache hold every file of parts, verified, and
// returns the cache file of each SHA-256.
func (s *Shipper) fetchAll(ctx context.Context, parts []TaskManifest, res *RestoreResult) (map[string]string, error) {
	files := map[string]string{}
	for _, m := range parts {
		for _, f := range m.Files {
			if _, ok := files[f.SHA256]; ok {
				continue
			}
			p, n, err := s.cached(ctx, f)
			res.Downloaded += n
			if err != nil {
				return nil, fmt.Errorf("restore operator %q from task checkpoint %s: %w", m.Operator, m.Range(), err)
			}
			files[f.SHA256] = p
		}
	}
	return files, nil
}

// restoreOne imports target's part of one task checkpoint, whose files
// fetchAll put in the cache.
func (s *Shipper) restoreOne(m TaskManifest, files map[string]string, t Target, im *importer, res *RestoreResult) error {
	dir, err := os.MkdirTemp(s.opts.CacheDir, tmpRestorePrefix)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := place(m, files, dir); err != nil {
		return err
	}
	db, err := openReadOnly(dir)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := checkFormat(db); err != nil {
		return err
	}
	if err := importPart(db, m, t, im); err != nil {
		return err
	}
	meta, err := readMeta(db, m)
	res.Meta = append(res.Meta, meta...)
	return err
}

// importPart copies the task checkpoint's keys of target's range, and its
// staged outputs when target's range holds the task's first key group.
func importPart(db *pebble.DB, m TaskManifest, t Target, im *importer) error {
	span := stateSpan(t.Operator, max(m.Start, t.Range.Start), min(m.End, t.Range.End))
	if err := im.copyState(db, span); err != nil {
		return err
	}
	if !t.Range.Contains(m.Start) {
		return nil
	}
	return im.copyOutbox(db, m.Operator, m.Index)
}
