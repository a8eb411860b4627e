package engine

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/engine/recovery"
	"github.com/wasmstream/wasmstream/internal/savepointstore"
	"github.com/wasmstream/wasmstream/plugins"
)

// Savepoints are checkpoints the user owns (checkpoint/FORMAT.md §5): copied
// out of retention into <data_dir>/savepoints, with the operator modules
// that wrote them, kept until removed, portable as one archive.

var (
	// ErrNoCheckpoint: a savepoint was asked of a pipeline that has not
	// completed a checkpoint yet.
	ErrNoCheckpoint = errors.New("no completed checkpoint")
	// ErrSavepointRestore marks a savepoint that could not be made a
	// checkpoint of the data dir. Nothing was added to it.
	ErrSavepointRestore = errors.New("cannot restore savepoint")
)

// ObjectStoreRefPrefix starts a savepoint reference to the Object Store:
// objectstore:NAME (this pipeline's) or objectstore:PIPELINE/NAME.
const ObjectStoreRefPrefix = "objectstore:"

// SavepointRoot is the directory of a pipeline's savepoints.
func SavepointRoot(cfg *config.Pipeline) string { return SavepointRootIn(cfg.DataDir) }

// SavepointRootIn is SavepointRoot for a data directory.
func SavepointRootIn(dataDir string) string { return filepath.Join(dataDir, "savepoints") }

// SavepointOptions say what CreateSavepoint saves.
type SavepointOptions struct {
	// Name of the savepoint; "" means sp-<checkpoint id>-<time>.
	Name string
	// Description is a note kept with it.
	Description string
	// Checkpoint saves this retained checkpoint; 0 means a new one when the
	// pipeline runs, else the newest.
	Checkpoint uint64
	// TriggerTimeout bounds the wait for a triggered checkpoint (default 2m).
	TriggerTimeout time.Duration
	// ToObjectStore also stores the savepoint's archive in the Object Store
	// bucket of the pipeline's NATS.
	ToObjectStore bool
}

// SavepointResult is what CreateSavepoint made.
type SavepointResult struct {
	Savepoint checkpoint.Savepoint
	// Triggered: the pipeline was running and checkpointed for this savepoint.
	Triggered bool
	// Stored is the Object Store copy (ToObjectStore), on server Server.
	Stored *savepointstore.StoredSavepoint
	Server string
}

// CreateSavepoint saves a checkpoint of cfg's pipeline as a savepoint. When
// the pipeline runs (its data dir is locked) it triggers a checkpoint on it
// and saves that one; otherwise it saves the newest completed checkpoint,
// holding the data dir's lock meanwhile so no run starts under it. The
// copy is verified byte for byte, and the modules that wrote the state are
// taken from the configured module files, the module cache or an earlier
// savepoint.
func CreateSavepoint(ctx context.Context, cfg *config.Pipeline, opts SavepointOptions, logger hclog.Logger) (SavepointResult, error) {
	logger = orNullLogger(logger)
	if opts.Name != "" {
		if err := checkpoint.ValidateSavepointName(opts.Name); err != nil {
			return SavepointResult{}, err
		}
	}
	src, err := savepointSource(ctx, cfg, opts, logger)
	if err != nil {
		return SavepointResult{}, err
	}
	defer src.release()
	m, err := checkpoint.Read(CheckpointRoot(cfg), src.id)
	if err != nil {
		return SavepointResult{}, err
	}
	mods, err := savepointModules(cfg, m)
	if err != nil {
		return SavepointResult{}, err
	}
	sp, err := checkpoint.CreateSavepoint(SavepointRoot(cfg), CheckpointRoot(cfg), src.id, checkpoint.SavepointSpec{
		Name: opts.Name, Pipeline: cfg.Name, Description: opts.Description, Modules: mods})
	if err != nil {
		return SavepointResult{}, err
	}
	src.release()
	res := SavepointResult{Savepoint: sp, Triggered: src.triggered}
	if opts.ToObjectStore {
		st, server, err := PushSavepoint(ctx, cfg, sp.Info.Name, logger)
		if err != nil {
			return res, fmt.Errorf("savepoint %q is saved in %s but not in the Object Store: %w; retry with: wasmstream savepoint export PIPELINE.hcl %s --to-object-store",
				sp.Info.Name, sp.Dir, err, sp.Info.Name)
		}
		res.Stored, res.Server = &st, server
	}
	return res, nil
}

// PushSavepoint stores savepoint name of cfg's data dir in the Object Store
// of the pipeline's NATS and returns the object and the server's URL.
func PushSavepoint(ctx context.Context, cfg *config.Pipeline, name string, logger hclog.Logger) (savepointstore.StoredSavepoint, string, error) {
	conn, err := ConnectClient(ctx, cfg, logger, AsControl)
	if err != nil {
		return savepointstore.StoredSavepoint{}, "", err
	}
	defer conn.Close()
	st, err := savepointstore.NewSavepointStore(conn, "").Put(ctx, SavepointRoot(cfg), name)
	return st, conn.ClientURL(), err
}

// savepointSrc is the checkpoint a savepoint copies; release frees the
// data dir's lock when it was taken.
type savepointSrc struct {
	id        uint64
	triggered bool
	release   func()
}

func savepointSource(ctx context.Context, cfg *config.Pipeline, opts SavepointOptions, logger hclog.Logger) (savepointSrc, error) {
	lock, err := recovery.Lock(cfg.DataDir)
	switch {
	case err == nil:
		release := sync1(func() { _ = lock.Close() })
		id, err := chosenCheckpoint(cfg, opts.Checkpoint)
		if err != nil {
			release()
		}
		return savepointSrc{id: id, release: release}, err
	case !errors.Is(err, ErrDataDirInUse):
		return savepointSrc{}, err
	case opts.Checkpoint != 0:
		id, err := chosenCheckpoint(cfg, opts.Checkpoint)
		return savepointSrc{id: id, release: func() {}}, err
	}
	r, err := TriggerCheckpoint(ctx, cfg, logger, cmp.Or(opts.TriggerTimeout, 2*time.Minute))
	if err != nil {
		return savepointSrc{}, fmt.Errorf("pipeline %q: its data dir %s is in use, but a checkpoint for the savepoint failed: %w", cfg.Name, cfg.DataDir, err)
	}
	logger.Info("checkpoint taken for the savepoint", "checkpoint", r.ID, "duration", r.Duration)
	return savepointSrc{id: r.ID, triggered: true, release: func() {}}, nil
}

func orNullLogger(l hclog.Logger) hclog.Logger {
	if l == nil {
		return hclog.NewNullLogger()
	}
	return l
}

// sync1 returns f made safe to call more than once.
func sync1(f func()) func() {
	done := false
	return func() {
		if !done {
			done = true
			f()
		}
	}
}

// chosenCheckpoint returns want when it is retained, or the newest.
func chosenCheckpoint(cfg *config.Pipeline, want uint64) (uint64, error) {
	root := CheckpointRoot(cfg)
	ids, err := checkpoint.List(root)
	switch {
	case err != nil:
		return 0, err
	case want != 0 && !slices.Contains(ids, want):
		return 0, fmt.Errorf("%w: checkpoint %d is not retained in %s; retained: %s", checkpoint.ErrCheckpointNotFound, want, root, orNone(ids))
	case want != 0:
		return want, nil
	case len(ids) == 0:
		return 0, fmt.Errorf("%w: pipeline %q has none in %s; run it first (a graceful stop writes one)", ErrNoCheckpoint, cfg.Name, root)
	}
	return ids[0], nil
}

func orNone(ids []uint64) string {
	if len(ids) == 0 {
		return "none"
	}
	return recovery.IDList(ids)
}

// savepointModules finds a file for the module of every operator of m: the
// configured module files, then the module cache and earlier savepoints,
// each checked by its hash.
func savepointModules(cfg *config.Pipeline, m checkpoint.Manifest) (map[string]string, error) {
	found := map[string]string{}
	configured := map[string]string{} // operator -> sha256 of its configured file
	for _, oc := range cfg.Operators {
		if sha, err := fileSHA256(oc.Module); err == nil {
			configured[oc.Name] = sha
			found[sha] = cmp.Or(found[sha], oc.Module)
		}
	}
	savepoints, _ := checkpoint.ListSavepoints(SavepointRoot(cfg))
	for _, op := range m.Operators {
		sha := op.ModuleSHA256
		candidates := []string{plugins.CachePath(ModuleCacheDir(cfg.DataDir), sha)}
		for _, name := range savepoints {
			candidates = append(candidates, filepath.Join(checkpoint.SavepointDir(SavepointRoot(cfg), name), "modules", sha+".wasm"))
		}
		for _, c := range candidates {
			if found[sha] != "" {
				break
			}
			if got, err := fileSHA256(c); err == nil && got == sha {
				found[sha] = c
			}
		}
		if found[sha] == "" {
			return nil, fmt.Errorf("%w: operator %q: no file holds the module that wrote checkpoint %d (sha256 %s): the configured module has sha256 %s, and neither the module cache %s nor a savepoint has it; put that module back and retry",
				checkpoint.ErrModuleMissing, op.Name, m.ID, sha, cmp.Or(configured[op.Name], "none (not readable)"), ModuleCacheDir(cfg.DataDir))
		}
	}
	return found, nil
}

func fileSHA256(path string) (string, error) {
	if path == "" {
		return "", os.ErrNotExist
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return plugins.HashBytes(b), nil
}

// ImportSavepoint makes a savepoint a completed checkpoint of cfg's data
// dir and returns its id; run the pipeline with RecoveryOptions
// FromCheckpoint set to it. ref is a savepoint name in the data dir, the
// path of a savepoint archive, or objectstore:NAME (or
// objectstore:PIPELINE/NAME), fetched from the pipeline's NATS. The
// checkpoint keeps its own id when that is free (or already holds exactly
// this checkpoint), else it gets the newest id + 1. Every byte is verified
// first; an existing checkpoint is never changed. The pipeline must not be
// running: ImportSavepoint takes the data dir's lock.
func ImportSavepoint(ctx context.Context, cfg *config.Pipeline, ref string, logger hclog.Logger) (uint64, error) {
	lock, err := recovery.Lock(cfg.DataDir)
	if err != nil {
		return 0, fmt.Errorf("%w %s: %w", ErrSavepointRestore, ref, err)
	}
	defer lock.Close()
	a, err := importSavepoint(ctx, cfg, ref, orNullLogger(logger))
	return a.ID, err
}

// importFromSavepoint turns ro.FromSavepoint into ro.FromCheckpoint. Open
// calls it with the data dir already locked, before choosing what to
// restore.
func importFromSavepoint(ctx context.Context, cfg *config.Pipeline, ro *RecoveryOptions, logger hclog.Logger) error {
	if ro.FromSavepoint == "" {
		return nil
	}
	if ro.FromCheckpoint != 0 || ro.EmptyState {
		return fmt.Errorf("%w %s: --from-savepoint cannot be combined with --from-checkpoint or --empty-state", ErrSavepointRestore, ro.FromSavepoint)
	}
	a, err := importSavepoint(ctx, cfg, ro.FromSavepoint, logger)
	ro.FromCheckpoint = a.ID
	return err
}

// importSavepoint is ImportSavepoint for a caller that holds the lock.
func importSavepoint(ctx context.Context, cfg *config.Pipeline, ref string, logger hclog.Logger) (checkpoint.Adoption, error) {
	root := CheckpointRoot(cfg)
	if _, err := checkpoint.RemoveLeftovers(root); err != nil {
		return checkpoint.Adoption{}, fmt.Errorf("%w %s: clean %s: %w", ErrSavepointRestore, ref, root, err)
	}
	var a checkpoint.Adoption
	var err error
	local := ""
	switch kind, pipeline, name := parseSavepointRef(cfg, ref); kind {
	case refObjectStore:
		a, err = adoptFromObjectStore(ctx, cfg, pipeline, name, logger)
	case refLocal:
		local = checkpoint.SavepointDir(SavepointRoot(cfg), name)
		if a, err = checkpoint.AdoptSavepoint(SavepointRoot(cfg), name, root); errors.Is(err, checkpoint.ErrSavepointNotFound) {
			names, _ := checkpoint.ListSavepoints(SavepointRoot(cfg))
			err = fmt.Errorf("%w; savepoints there: %s; or give an archive FILE or objectstore:NAME", err, cmp.Or(strings.Join(names, ", "), "none"))
		}
	default:
		a, err = adoptArchiveFile(ref, root)
	}
	if err != nil {
		return a, fmt.Errorf("%w %s: %w", ErrSavepointRestore, ref, err)
	}
	logger.Info("savepoint restored as a checkpoint", "savepoint", a.Info.Name, "from_pipeline", a.Info.Pipeline,
		"savepoint_checkpoint", a.Info.CheckpointID, "checkpoint", a.ID, "already_there", a.Reused, "renumbered", a.Renumbered)
	warnSavepointModules(cfg, a, local, logger)
	return a, nil
}

type savepointRefKind int

const (
	refFile savepointRefKind = iota
	refLocal
	refObjectStore
)

// parseSavepointRef tells the three forms of a reference apart: the
// objectstore: prefix; a savepoint of the data dir; else a file path. A
// bare name that is neither a savepoint nor a file is taken as a savepoint
// name, so its error lists the savepoints there are.
func parseSavepointRef(cfg *config.Pipeline, ref string) (kind savepointRefKind, pipeline, name string) {
	if rest, ok := strings.CutPrefix(ref, ObjectStoreRefPrefix); ok {
		if p, n, ok := strings.Cut(rest, "/"); ok {
			return refObjectStore, p, n
		}
		return refObjectStore, cfg.Name, rest
	}
	if checkpoint.ValidateSavepointName(ref) != nil {
		return refFile, "", ""
	}
	if _, err := os.Stat(checkpoint.SavepointDir(SavepointRoot(cfg), ref)); err == nil {
		return refLocal, cfg.Name, ref
	}
	if fi, err := os.Stat(ref); err == nil && fi.Mode().IsRegular() {
		return refFile, "", ""
	}
	return refLocal, cfg.Name, ref
}

func adoptArchiveFile(path, root string) (checkpoint.Adoption, error) {
	f, err := os.Open(path)
	if err != nil {
		return checkpoint.Adoption{}, fmt.Errorf("archive: %w (give a savepoint NAME of this data dir, an archive file or objectstore:NAME)", err)
	}
	defer f.Close()
	return checkpoint.AdoptArchive(bufio.NewReaderSize(f, 1<<20), root)
}

func adoptFromObjectStore(ctx context.Context, cfg *config.Pipeline, pipeline, name string, logger hclog.Logger) (checkpoint.Adoption, error) {
	conn, err := ConnectClient(ctx, cfg, logger, AsControl)
	if err != nil {
		return checkpoint.Adoption{}, err
	}
	defer conn.Close()
	r, st, err := savepointstore.NewSavepointStore(conn, "").Get(ctx, pipeline, name)
	if err != nil {
		return checkpoint.Adoption{}, err
	}
	defer r.Close()
	logger.Info("fetching savepoint from the Object Store", "object", st.Object, "bucket", st.Bucket, "bytes", st.Size, "server", conn.ClientURL())
	return checkpoint.AdoptArchive(r, CheckpointRoot(cfg))
}

// warnSavepointModules says, before the restore refuses it, that a
// configured module is not the one that wrote the state, and where the
// savepoint keeps that one.
func warnSavepointModules(cfg *config.Pipeline, a checkpoint.Adoption, local string, logger hclog.Logger) {
	if a.Info.Pipeline != cfg.Name {
		logger.Info("the savepoint was taken from another pipeline", "savepoint_pipeline", a.Info.Pipeline, "pipeline", cfg.Name)
	}
	for _, op := range a.Manifest.Operators {
		oc := cfg.Operator(op.Name)
		if oc == nil || oc.Module == "" {
			continue
		}
		if sha, err := fileSHA256(oc.Module); err == nil && sha != op.ModuleSHA256 {
			where := "wasmstream savepoint import keeps it under <data_dir>/savepoints/NAME/modules"
			if local != "" {
				where = filepath.Join(local, "modules", op.ModuleSHA256+".wasm")
			}
			logger.Warn("the configured module is not the one that wrote the savepoint's state", "operator", op.Name,
				"module", oc.Module, "sha256", sha[:16], "savepoint_sha256", op.ModuleSHA256[:16], "savepoint_module", where)
		}
	}
}
