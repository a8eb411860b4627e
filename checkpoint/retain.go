package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	if keep < 1 {
		return nil, fmt.Errorf("%w: keep %d", ErrInvalidRetain, keep)
	}
	ids, err := List(root)
	if err != nil || len(ids) <= keep {
		return nil, err
	}
	for _, id := range ids[keep:] {
		if err := remove(root, id); err != nil {
			return removed, err
		}
		removed = append(removed, id)
	}
	return removed, nil
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
