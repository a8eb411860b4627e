package deploy

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/state"
)

// imported is a savepoint made a completed checkpoint of a private
// checkpoint root.
type imported struct {
	root     string
	manifest checkpoint.Manifest
}

// importSavepoint makes savepoint ref a checkpoint under work, resolving
// ref as `wasmstream run --from-savepoint` does (engine.ImportSavepoint):
// a savepoint NAME of cfg's data dir, an archive FILE, or
// objectstore:NAME / objectstore:PIPELINE/NAME on cfg's NATS. Every byte is
// verified on the way; cfg's data dir is only read.
func importSavepoint(ctx context.Context, cfg *config.Pipeline, ref, work string, logger hclog.Logger) (imported, error) {
	private := *cfg
	private.DataDir = filepath.Join(work, "data")
	root := engine.CheckpointRoot(&private)
	var id uint64
	var err error
	if name, ok := localSavepoint(cfg, ref); ok {
		// The engine looks for NAME in the data dir it imports into; this
		// one's savepoints are in cfg's.
		var a checkpoint.Adoption
		a, err = checkpoint.AdoptSavepoint(engine.SavepointRoot(cfg), name, root)
		if err != nil {
			names, _ := checkpoint.ListSavepoints(engine.SavepointRoot(cfg))
			err = fmt.Errorf("%w %s: %w; savepoints there: %s; or give an archive FILE or objectstore:NAME",
				engine.ErrSavepointRestore, ref, err, cmp.Or(strings.Join(names, ", "), "none"))
		}
		id = a.ID
	} else {
		id, err = engine.ImportSavepoint(ctx, &private, ref, logger)
	}
	if err != nil {
		return imported{}, err
	}
	m, err := checkpoint.Read(root, id)
	if err != nil {
		return imported{}, fmt.Errorf("%w %s: %w", engine.ErrSavepointRestore, ref, err)
	}
	return imported{root: root, manifest: m}, nil
}

// localSavepoint tells a savepoint NAME of cfg's data dir from the other
// forms, by the rule of the engine's reference parser: the objectstore:
// prefix; else a savepoint of the data dir; else a regular file; else a
// name, so that its error lists the savepoints there are.
func localSavepoint(cfg *config.Pipeline, ref string) (string, bool) {
	if strings.HasPrefix(ref, engine.ObjectStoreRefPrefix) || checkpoint.ValidateSavepointName(ref) != nil {
		return "", false
	}
	if _, err := os.Stat(checkpoint.SavepointDir(engine.SavepointRoot(cfg), ref)); err == nil {
		return ref, true
	}
	if fi, err := os.Stat(ref); err == nil && fi.Mode().IsRegular() {
		return "", false
	}
	return ref, true
}

// openState copies the state of sp into dir and opens it.
func (sp imported) openState(dir string) (*state.Store, error) {
	if err := checkpoint.RestoreState(sp.root, sp.manifest.ID, dir); err != nil {
		return nil, err
	}
	st, err := state.Open(dir, state.Options{})
	if err != nil {
		return nil, fmt.Errorf("the savepoint's state (checkpoint %d): %w", sp.manifest.ID, err)
	}
	return st, nil
}
