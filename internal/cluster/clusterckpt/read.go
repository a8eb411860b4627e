package clusterckpt

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/cluster/lease"
	"github.com/wasmstream/wasmstream/internal/cluster/ship"
	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// Checkpoint is one completed cluster checkpoint.
type Checkpoint struct {
	// Record is its completion record, checkpoint.<N>.
	Record ctlrec.Completed
	// Manifest is the global manifest Record names; zero when Err is set.
	Manifest global.Manifest
	// Latest: the newest completed checkpoint, the one workers restore.
	Latest bool
	// Err is why the manifest could not be read (List only; Get returns it).
	Err error
	// Collected (List only): the manifest object is missing and
	// checkpoint.retain newer checkpoints are readable, so retention
	// removed it: the coordinator deletes the objects of all but the
	// retained checkpoints and keeps their completion records. Err is set.
	Collected bool
}

// ID is the checkpoint's N.
func (c Checkpoint) ID() uint64 { return c.Record.Checkpoint }

// Latest returns the newest completed checkpoint's record, read through
// the stream leader (ctlrec.Latest); ErrNoCheckpoint when none completed.
func (s *Store) Latest(ctx context.Context) (ctlrec.Completed, error) {
	c, err := ctlrec.Latest(ctx, s.bucket)
	if errors.Is(err, lease.ErrNotFound) {
		return ctlrec.Completed{}, s.noCheckpoint(fmt.Sprintf("bucket %s on %s holds no completion record", s.Bucket(), s.Server()))
	}
	if err != nil {
		return ctlrec.Completed{}, fmt.Errorf("pipeline %q: latest cluster checkpoint: %w", s.cfg.Name, err)
	}
	return c, nil
}

// Record returns checkpoint id's completion record (0: the latest's). An
// id without one is ErrNotFound, listing the completed ones.
func (s *Store) Record(ctx context.Context, id uint64) (ctlrec.Completed, error) {
	if id == 0 {
		return s.Latest(ctx)
	}
	c, err := ctlrec.ReadCompleted(ctx, s.bucket, id)
	if errors.Is(err, lease.ErrNotFound) {
		return ctlrec.Completed{}, s.notFound(ctx, id)
	}
	if err != nil {
		return ctlrec.Completed{}, fmt.Errorf("cluster checkpoint %d of pipeline %q: %w", id, s.cfg.Name, err)
	}
	return c, nil
}

// notFound is ErrNotFound for id with the ids that did complete.
func (s *Store) notFound(ctx context.Context, id uint64) error {
	err := fmt.Errorf("%w: cluster checkpoint %d of pipeline %q has no completion record in bucket %s (it never completed or does not exist)",
		ErrNotFound, id, s.cfg.Name, s.Bucket())
	ids, lerr := s.IDs(ctx)
	switch {
	case lerr != nil:
		return fmt.Errorf("%w; listing the completed ones failed too: %v", err, lerr)
	case len(ids) == 0:
		return fmt.Errorf("%w; none completed yet: start the workers (wasmstream worker PIPELINE.hcl --id ID) and wait for one", err)
	}
	return fmt.Errorf("%w; completed: %s", err, JoinIDs(ids))
}

// Manifest reads the global manifest rec names, checking its bytes against
// rec's SHA-256; the error names the object and the checkpoint.
func (s *Store) Manifest(ctx context.Context, rec ctlrec.Completed) (global.Manifest, error) {
	m, err := global.ReadManifest(ctx, s.obs, rec.Manifest, rec.SHA256)
	if err != nil {
		return global.Manifest{}, fmt.Errorf("cluster checkpoint %d (bucket %s): %w", rec.Checkpoint, s.ObjectStore(), err)
	}
	if m.ID() != rec.Checkpoint || m.Generation != rec.Generation || m.Assignment != rec.Assignment {
		return global.Manifest{}, fmt.Errorf("%w: cluster checkpoint %d: object %s is the manifest of checkpoint %d (generation %d, assignment %d), its record says generation %d, assignment %d; restore from another checkpoint",
			global.ErrCorrupt, rec.Checkpoint, rec.Manifest, m.ID(), m.Generation, m.Assignment, rec.Generation, rec.Assignment)
	}
	return m, nil
}

// Get returns checkpoint id (0: the latest) with its manifest.
func (s *Store) Get(ctx context.Context, id uint64) (Checkpoint, error) {
	rec, err := s.Record(ctx, id)
	if err != nil {
		return Checkpoint{}, err
	}
	latest, err := s.Latest(ctx)
	if err != nil {
		return Checkpoint{}, err
	}
	m, err := s.Manifest(ctx, rec)
	if err != nil {
		return Checkpoint{}, err
	}
	return Checkpoint{Record: rec, Manifest: m, Latest: rec.Checkpoint == latest.Checkpoint}, nil
}

// List returns every completed checkpoint, newest first; one whose
// manifest cannot be read carries the error in Err. None completed is an
// empty list.
func (s *Store) List(ctx context.Context) ([]Checkpoint, error) {
	latest, err := s.Latest(ctx)
	if errors.Is(err, ErrNoCheckpoint) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ids, err := s.idsWith(ctx, latest.Checkpoint)
	if err != nil {
		return nil, err
	}
	out := make([]Checkpoint, 0, len(ids))
	readable := 0
	for _, id := range ids {
		rec, err := ctlrec.ReadCompleted(ctx, s.bucket, id)
		switch {
		case errors.Is(err, lease.ErrNotFound):
			continue // removed since the keys were listed
		case err != nil:
			out = append(out, Checkpoint{Record: ctlrec.Completed{Checkpoint: id}, Err: err})
			continue
		}
		c := Checkpoint{Record: rec, Latest: id == latest.Checkpoint}
		c.Manifest, c.Err = s.Manifest(ctx, rec)
		c.Collected = errors.Is(c.Err, ship.ErrMissingObject) && readable >= Retain(s.cfg)
		if c.Err == nil {
			readable++
		}
		out = append(out, c)
	}
	return out, nil
}

// Retain is how many of cfg's cluster checkpoints the coordinator keeps
// the objects of: checkpoint.retain, at least 1.
func Retain(cfg *config.Pipeline) int { return max(cfg.Checkpoint.Retain, 1) }

// IDs returns the ids of the completed checkpoints, newest first, whether
// retention removed their objects or not.
func (s *Store) IDs(ctx context.Context) ([]uint64, error) {
	latest, err := s.Latest(ctx)
	if errors.Is(err, ErrNoCheckpoint) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return s.idsWith(ctx, latest.Checkpoint)
}

// idsWith lists the checkpoint.<N> keys, plus latest: the key listing
// goes through a consumer, not the stream leader, so the leader-read
// latest is added in case the listing is behind. Each id's record is read
// through the leader afterwards.
func (s *Store) idsWith(ctx context.Context, latest uint64) ([]uint64, error) {
	lister, err := s.bucket.KV().ListKeysFiltered(ctx, completedPrefix+"*")
	if err != nil {
		return nil, fmt.Errorf("list the keys of bucket %s: %w", s.Bucket(), err)
	}
	defer func() { _ = lister.Stop() }()
	ids := []uint64{latest}
	for key := range lister.Keys() {
		if n, ok := completedID(key); ok {
			ids = append(ids, n)
		}
	}
	slices.SortFunc(ids, func(a, b uint64) int { return cmp.Compare(b, a) })
	return slices.Compact(ids), nil
}

// completedPrefix starts every checkpoint key of ctlrec; completedID keeps
// those that are ctlrec.CompletedKey of a number.
const completedPrefix = "checkpoint."

// completedID parses a checkpoint.<N> key.
func completedID(key string) (uint64, bool) {
	rest, ok := strings.CutPrefix(key, completedPrefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(rest, 10, 64)
	if err != nil || n == 0 || ctlrec.CompletedKey(n) != key {
		return 0, false
	}
	return n, true
}

// JoinIDs formats ids as "3, 2, 1".
func JoinIDs(ids []uint64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatUint(id, 10)
	}
	return strings.Join(s, ", ")
}
