package deploy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/privatefs"
	"github.com/wasmstream/wasmstream/internal/state"
)

// workPrefix names Seed's temporary directory under the data dir (the
// savepoint's checkpoint, its state, the task snapshots); a crash may
// leave one behind, which is safe to remove when no deploy runs.
const workPrefix = ".deploy-"

// Options say what Seed deploys.
type Options struct {
	// Savepoint is the savepoint to seed the cluster with: a savepoint
	// NAME of the data dir, an archive FILE, or objectstore:NAME
	// (objectstore:PIPELINE/NAME), as `wasmstream run --from-savepoint`
	// takes it.
	Savepoint string
	// Force seeds it although the cluster has completed checkpoints: it
	// becomes the latest, which the workers restore.
	Force bool
	// Logger receives the savepoint import's logs.
	Logger hclog.Logger
}

// Result is what Seed did.
type Result struct {
	Assets Assets `json:"assets"`
	// Savepoint is the reference seeded, SavepointCheckpoint the id of the
	// checkpoint it holds.
	Savepoint           string `json:"savepoint"`
	SavepointCheckpoint uint64 `json:"savepoint_checkpoint"`
	// Record is the seeded checkpoint's completion record, Manifest its
	// global manifest.
	Record   ctlrec.Completed `json:"record"`
	Manifest global.Manifest  `json:"-"`
	// Replaced is the latest completed checkpoint before (with Force), 0
	// for none.
	Replaced uint64 `json:"replaced,omitempty"`
	// TaskCheckpoints counts the task checkpoints shipped; BytesTotal is
	// their size and BytesUploaded what the Object Store lacked.
	TaskCheckpoints int   `json:"task_checkpoints"`
	BytesTotal      int64 `json:"bytes_total"`
	BytesUploaded   int64 `json:"bytes_uploaded"`
	// Notes say where the workers' restore differs from the savepoint's run.
	Notes []string `json:"notes,omitempty"`
}

// Seed ensures cfg's assets (Ensure) and makes savepoint o.Savepoint the
// cluster's next completed checkpoint, which the workers started
// afterwards restore (package doc). It refuses, before anything is
// written but the assets, while workers run (ErrWorkersRunning), when a
// checkpoint completed already and not o.Force (ErrCheckpointsExist), and
// when the savepoint does not fit the pipeline (ErrMismatch). A failure
// after the claim leaves only an aborted claim and unreferenced objects,
// as an aborted checkpoint of the workers does.
func Seed(ctx context.Context, cfg *config.Pipeline, o Options) (Result, error) {
	logger := orNull(o.Logger)
	c, err := connect(ctx, cfg, logger)
	if err != nil {
		return Result{}, err
	}
	defer c.close()
	res := Result{Assets: c.assets, Savepoint: o.Savepoint}
	hold, err := c.takeCoordinator(ctx)
	if err != nil {
		return res, err
	}
	defer hold.release()
	err = c.seed(hold, o, logger, &res)
	return res, hold.lost(err)
}

// seed does Seed's work under the coordinator lease.
func (c *cluster) seed(hold *coordinatorHold, o Options, logger hclog.Logger, res *Result) error {
	ctx, started := hold.ctx, time.Now()
	var err error
	if res.Replaced, err = c.latestBefore(ctx, o.Force); err != nil {
		return err
	}
	work, err := workDir(c.cfg)
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	sp, err := importSavepoint(ctx, c.cfg, o.Savepoint, work, logger)
	if err != nil {
		return err
	}
	res.SavepointCheckpoint = sp.manifest.ID
	if res.Notes, err = c.checkSavepoint(ctx, sp.manifest); err != nil {
		return err
	}
	st, err := sp.openState(filepath.Join(work, "state"))
	if err != nil {
		return err
	}
	defer st.Close()
	return c.commit(hold, sp.manifest, st, filepath.Join(work, "snapshots"), started, res)
}

// commit claims the next checkpoint, ships the savepoint's state st (of
// manifest m) as its task checkpoints and completes it.
func (c *cluster) commit(hold *coordinatorHold, m checkpoint.Manifest, st *state.Store, dir string, started time.Time, res *Result) error {
	ctx := hold.ctx
	epoch, err := c.assignmentEpoch(ctx)
	if err != nil {
		return err
	}
	// N ≥ the savepoint's id: its staged outputs' epochs are ≤ N, so the
	// workers publish them all at their restore.
	p, err := ctlrec.ClaimAtLeast(ctx, c.bucket, hold.l, epoch, false, m.ID)
	if err != nil {
		return fmt.Errorf("pipeline %q: %w", c.cfg.Name, err)
	}
	if note := outboxNote(st, p.Checkpoint); note != "" {
		res.Notes = append(res.Notes, note)
	}
	s := shipping{c: c, db: st.DB(), p: p, dir: dir}
	ack, err := s.ack(ctx, m, started)
	if err != nil {
		return err
	}
	res.TaskCheckpoints, res.BytesTotal, res.BytesUploaded = s.shipped, s.total, s.uploaded
	res.Notes = append(res.Notes, s.notes...)
	// A worker that started meanwhile waits for the lease, but may run
	// tasks of an existing assignment from the older checkpoint.
	if err := c.noMembers(ctx); err != nil {
		return fmt.Errorf("%w; checkpoint %d was not completed", err, p.Checkpoint)
	}
	res.Manifest, res.Record, err = c.complete(ctx, hold, p, ack, started)
	return err
}

// checkSavepoint refuses a savepoint that does not fit the pipeline
// (checkFits) or whose positions are in other instances of its streams
// (a stream recreated since), as a worker's restore would.
func (c *cluster) checkSavepoint(ctx context.Context, m checkpoint.Manifest) ([]string, error) {
	modules, err := configuredModules(c.cfg)
	if err != nil {
		return nil, fmt.Errorf("pipeline %q: %w", c.cfg.Name, err)
	}
	notes, err := checkFits(c.cfg, m, modules)
	if err != nil {
		return notes, err
	}
	var errs []error
	for _, pos := range m.Sources {
		sc := c.cfg.Source(pos.Name)
		if sc == nil {
			continue
		}
		s, err := c.conn.JS.Stream(ctx, pos.Stream)
		switch {
		case errors.Is(err, jetstream.ErrStreamNotFound):
			errs = append(errs, fmt.Errorf("source %q: stream %s does not exist on %s", pos.Name, pos.Stream, c.assets.Server))
		case err != nil:
			return notes, fmt.Errorf("source %q: stream %s: %w", pos.Name, pos.Stream, err)
		case !s.CachedInfo().Created.Equal(pos.StreamCreated):
			errs = append(errs, fmt.Errorf("source %q: the savepoint's position (sequence %d) is in stream %s created %s, the stream on %s was created %s: it was recreated, or this is another server",
				pos.Name, pos.LastSequence, pos.Stream, pos.StreamCreated.Format(time.RFC3339Nano), c.assets.Server, s.CachedInfo().Created.Format(time.RFC3339Nano)))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return notes, fmt.Errorf("%w (savepoint checkpoint %d): %w; nothing was written", ErrMismatch, m.ID, err)
	}
	return notes, nil
}

// complete assembles the ack into checkpoint p's global manifest, stores
// it and writes the fenced completion record: the commit point.
func (c *cluster) complete(ctx context.Context, hold *coordinatorHold, p ctlrec.Pending, ack global.Ack, started time.Time) (global.Manifest, ctlrec.Completed, error) {
	template := checkpoint.Manifest{ID: p.Checkpoint, Created: started.UTC(), Config: c.cfg.Text}
	m, err := global.Assemble(p.Checkpoint, p.Generation, p.Assignment, template, []global.Ack{ack})
	if err != nil {
		return m, ctlrec.Completed{}, err
	}
	object, sum, err := global.PutManifest(ctx, c.obs, m)
	if err != nil {
		return m, ctlrec.Completed{}, err
	}
	rec := ctlrec.Completed{Checkpoint: p.Checkpoint, Generation: p.Generation, Assignment: p.Assignment, Manifest: object, SHA256: sum}
	if err := ctlrec.Complete(ctx, hold.l, p, rec); err != nil {
		return m, ctlrec.Completed{}, fmt.Errorf("pipeline %q: %w", c.cfg.Name, err)
	}
	rec.Version = ctlrec.Version
	return m, rec, nil
}

// workDir makes Seed's temporary directory in the data dir, on the
// filesystem of the savepoints there (their state is hard-linked).
func workDir(cfg *config.Pipeline) (string, error) {
	if err := os.MkdirAll(cfg.DataDir, privatefs.DirMode); err != nil {
		return "", fmt.Errorf("data dir %s: %w", cfg.DataDir, err)
	}
	return os.MkdirTemp(cfg.DataDir, workPrefix)
}
