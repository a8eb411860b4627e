package clusterckpt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/cluster/ship"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/privatefs"
)

// materializePrefix names the temporary directory under the data dir in
// which CreateSavepoint builds the local checkpoint; a crash may leave one
// behind, which is safe to remove when no savepoint create runs.
const materializePrefix = ".cluster-savepoint-"

// SavepointResult is what CreateSavepoint made.
type SavepointResult struct {
	engine.SavepointResult
	// From is the cluster checkpoint saved.
	From Checkpoint
}

// CreateSavepoint saves a completed cluster checkpoint of cfg's pipeline
// as a savepoint in <data_dir>/savepoints: the latest, or opts.Checkpoint.
// Nothing is triggered (opts.TriggerTimeout is not used). Every task of
// every operator is restored from the Object Store, each object's SHA-256
// checked, into one local checkpoint in a temporary directory under the
// data dir (global.Materialize), which checkpoint.CreateSavepoint then
// copies and verifies with the operator modules (moduleFiles). With
// opts.ToObjectStore the savepoint is also pushed as engine.CreateSavepoint
// does; a failed push returns the result with the error.
func CreateSavepoint(ctx context.Context, cfg *config.Pipeline, opts engine.SavepointOptions, logger hclog.Logger) (SavepointResult, error) {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	if opts.Name != "" {
		if err := checkpoint.ValidateSavepointName(opts.Name); err != nil {
			return SavepointResult{}, err
		}
	}
	s, err := Open(ctx, cfg, logger)
	if err != nil {
		return SavepointResult{}, err
	}
	defer s.Close()
	c, err := s.Get(ctx, opts.Checkpoint)
	if errors.Is(err, ErrNoCheckpoint) || errors.Is(err, ErrNotFound) {
		return SavepointResult{}, err
	}
	if err != nil {
		return SavepointResult{}, nothingSaved(err)
	}
	sp, err := s.save(ctx, c, opts, logger)
	if err != nil {
		return SavepointResult{}, err
	}
	res := SavepointResult{SavepointResult: engine.SavepointResult{Savepoint: sp}, From: c}
	if opts.ToObjectStore {
		st, server, err := engine.PushSavepoint(ctx, cfg, sp.Info.Name, logger)
		if err != nil {
			return res, fmt.Errorf("savepoint %q is saved in %s but not in the Object Store: %w; retry with: wasmstream savepoint export PIPELINE.hcl %s --to-object-store",
				sp.Info.Name, sp.Dir, err, sp.Info.Name)
		}
		res.Stored, res.Server = &st, server
	}
	return res, nil
}

// nothingSaved adds the way out to a damaged checkpoint's error.
func nothingSaved(err error) error {
	return fmt.Errorf("%w; nothing was saved: `wasmstream checkpoints verify PIPELINE.hcl --all` finds a cluster checkpoint that passes; save it with --checkpoint ID", err)
}

// save materializes c into a temporary checkpoint root and saves it.
func (s *Store) save(ctx context.Context, c Checkpoint, opts engine.SavepointOptions, logger hclog.Logger) (checkpoint.Savepoint, error) {
	if err := os.MkdirAll(s.cfg.DataDir, privatefs.DirMode); err != nil {
		return checkpoint.Savepoint{}, fmt.Errorf("data dir %s: %w", s.cfg.DataDir, err)
	}
	tmp, err := os.MkdirTemp(s.cfg.DataDir, materializePrefix)
	if err != nil {
		return checkpoint.Savepoint{}, err
	}
	defer os.RemoveAll(tmp)
	mods, err := s.moduleFiles(ctx, c.Manifest.Checkpoint.Operators, filepath.Join(tmp, "modules"), logger)
	if err != nil {
		return checkpoint.Savepoint{}, fmt.Errorf("cluster checkpoint %d: %w", c.ID(), err)
	}
	root := filepath.Join(tmp, "checkpoints")
	if err := s.materializeAll(ctx, c.Manifest, root, tmp); err != nil {
		return checkpoint.Savepoint{}, nothingSaved(err)
	}
	return checkpoint.CreateSavepoint(engine.SavepointRoot(s.cfg), root, c.ID(), checkpoint.SavepointSpec{
		Name: opts.Name, Pipeline: s.cfg.Name, Description: opts.Description, Modules: mods})
}

// materializeAll writes every task of m as local checkpoint m.ID() under
// root, with a download cache and scratch space of its own under tmp: the
// cache of a worker on this data dir belongs to that worker's shipper.
func (s *Store) materializeAll(ctx context.Context, m global.Manifest, root, tmp string) error {
	sh, err := ship.New(ctx, s.obs, ship.Options{CacheDir: filepath.Join(tmp, "cache")})
	if err != nil {
		return err
	}
	if _, err := global.Materialize(ctx, sh, m, allTasks(m), root, filepath.Join(tmp, "scratch")); err != nil {
		return fmt.Errorf("restore every task of cluster checkpoint %d from bucket %s: %w", m.ID(), s.ObjectStore(), err)
	}
	return nil
}
