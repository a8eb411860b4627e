package statequery

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/state"
)

// Snapshot is the state of one checkpoint, opened read-only on a private
// copy: Pebble may write to a store it opens (its WAL, a new MANIFEST), and a
// checkpoint must stay byte for byte what Verify checks.
type Snapshot struct {
	ID       uint64
	Dir      string // the checkpoint's directory
	Manifest checkpoint.Manifest
	store    *state.Store
	tmp      string
}

// OpenCheckpoint opens checkpoint id under root, or with id 0 the newest
// one that verifies. The checkpoint is verified (every file's checksum)
// before it is read: state read from a damaged checkpoint would be a lie.
func OpenCheckpoint(root string, id uint64) (*Snapshot, error) {
	id, m, err := choose(root, id)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "wasmstream-state-")
	if err != nil {
		return nil, fmt.Errorf("checkpoint %d: temporary copy: %w", id, err)
	}
	s := &Snapshot{ID: id, Dir: checkpoint.Dir(root, id), Manifest: m, tmp: tmp}
	if err := s.open(root); err != nil {
		_ = os.RemoveAll(tmp)
		return nil, err
	}
	return s, nil
}

func (s *Snapshot) open(root string) error {
	dir := filepath.Join(s.tmp, "state")
	if err := checkpoint.RestoreState(root, s.ID, dir); err != nil {
		return err
	}
	st, err := state.Open(dir, state.Options{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("checkpoint %d (%s): %w", s.ID, s.Dir, err)
	}
	s.store = st
	return nil
}

// Close closes the store and removes the copy.
func (s *Snapshot) Close() error {
	err := s.store.Close()
	return errors.Join(err, os.RemoveAll(s.tmp))
}

// choose returns the checkpoint to read and its manifest: id verified, or
// the newest that verifies when id is 0. It only reads root (unlike a run's
// recovery, it removes no leftovers of interrupted writes).
func choose(root string, id uint64) (uint64, checkpoint.Manifest, error) {
	ids, err := checkpoint.List(root)
	if err != nil {
		return 0, checkpoint.Manifest{}, fmt.Errorf("list checkpoints in %s: %w", root, err)
	}
	if len(ids) == 0 {
		return 0, checkpoint.Manifest{}, fmt.Errorf("%w: %s holds no checkpoints; a pipeline writes one on its interval and when it stops", ErrNoCheckpoint, root)
	}
	if id != 0 {
		return chooseGiven(root, id, ids)
	}
	var failed []string
	for _, c := range ids {
		m, err := readVerified(root, c)
		if err == nil {
			return c, m, nil
		}
		failed = append(failed, err.Error())
	}
	return 0, checkpoint.Manifest{}, fmt.Errorf("%w: no checkpoint in %s verifies: %s", ErrNoCheckpoint, root, strings.Join(failed, "; "))
}

func chooseGiven(root string, id uint64, ids []uint64) (uint64, checkpoint.Manifest, error) {
	if !slices.Contains(ids, id) {
		return 0, checkpoint.Manifest{}, fmt.Errorf("%w: checkpoint %d is not retained in %s; retained: %s", ErrNoCheckpoint, id, root, idList(ids))
	}
	m, err := readVerified(root, id)
	if err != nil {
		return 0, checkpoint.Manifest{}, fmt.Errorf("%w: %w; give another --checkpoint (retained: %s)", ErrNoCheckpoint, err, idList(ids))
	}
	return id, m, nil
}

func readVerified(root string, id uint64) (checkpoint.Manifest, error) {
	m, err := checkpoint.Read(root, id)
	if err == nil {
		err = checkpoint.Verify(root, id)
	}
	if err != nil {
		return m, fmt.Errorf("checkpoint %d: %w", id, err)
	}
	return m, nil
}

// idList prints checkpoint ids for messages: "3, 2, 1".
func idList(ids []uint64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ", ")
}
