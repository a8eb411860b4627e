package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// ErrInvalidRetain: Retain was asked to keep fewer than one checkpoint.
// Keeping none would turn the next restart into a fresh start.
var ErrInvalidRetain = errors.New("checkpoint: retention must keep at least one checkpoint")

// Retain removes all but the newest keep checkpoints under root and returns
// the removed ids, newest first. Each is first renamed to a temporary name
// (and root fsynced), so a crash during removal never leaves a half-deleted
// directory that looks like a checkpoint.
//
// Retain does not know which checkpoints an uncommitted sink epoch still
// needs; the caller must choose keep (or call it later) accordingly.
func Retain(root string, keep int) (removed []uint64, err error) {
	return RetainWith(root, keep, RetainOptions{})
}

// RetainOptions tell retention where the calling run's history starts
// (FORMAT.md §1, retention).
type RetainOptions struct {
	// Restored is the checkpoint the run restored; 0 when it started from
	// empty state.
	Restored uint64
	// FirstOwn is the first id the run writes (the newest id retained when
	// it started, plus one). The ids between Restored and FirstOwn are the
	// checkpoints the restore skipped: a rollback past them, usually
	// because they failed verification.
	FirstOwn uint64
}

// RetainWith is Retain for a run that restored a checkpoint: it keeps the
// keep checkpoints that rank first, in this order: the run's own (id ≥
// FirstOwn), then Restored and the older ones, then the skipped ones, each
// group newest first. So the restored checkpoint stays until the run has
// written keep checkpoints, and skipped ones go before it. With Restored 0,
// or nothing skipped, that is Retain's order.
func RetainWith(root string, keep int, o RetainOptions) (removed []uint64, err error) {
	if keep < 1 {
		return nil, fmt.Errorf("%w: keep %d", ErrInvalidRetain, keep)
	}
	ids, err := List(root)
	if err != nil || len(ids) <= keep {
		return nil, err
	}
	doomed := slices.Clone(o.rank(ids)[keep:])
	slices.Sort(doomed)
	slices.Reverse(doomed)
	for _, id := range doomed {
		if err := remove(root, id); err != nil {
			return removed, err
		}
		removed = append(removed, id)
	}
	return removed, nil
}

// rank orders ids (newest first) from most to least worth keeping.
func (o RetainOptions) rank(ids []uint64) []uint64 {
	if o.Restored == 0 {
		return ids
	}
	firstOwn := max(o.FirstOwn, o.Restored+1)
	var own, lineage, skipped []uint64
	for _, id := range ids {
		switch {
		case id >= firstOwn:
			own = append(own, id)
		case id > o.Restored:
			skipped = append(skipped, id)
		default:
			lineage = append(lineage, id)
		}
	}
	return slices.Concat(own, lineage, skipped)
}

// remove takes checkpoint id out of the listing atomically, then deletes it.
func remove(root string, id uint64) error {
	dir := Dir(root, id)
	doomed := filepath.Join(root, delPrefix+filepath.Base(dir))
	if err := os.Rename(dir, doomed); err != nil {
		return fmt.Errorf("checkpoint %d (%s): remove: %w", id, dir, err)
	}
	if err := syncDir(root); err != nil {
		return fmt.Errorf("checkpoint %d (%s): remove: %w", id, dir, err)
	}
	if err := os.RemoveAll(doomed); err != nil {
		return fmt.Errorf("checkpoint %d: delete %s: %w", id, doomed, err)
	}
	return nil
}
