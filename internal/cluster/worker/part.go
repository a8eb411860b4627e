package worker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/assign"
	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
	"github.com/wasmstream/wasmstream/internal/cluster/lease"
	"github.com/wasmstream/wasmstream/internal/cluster/ship"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/engine/recovery"
	"github.com/wasmstream/wasmstream/internal/privatefs"
	"github.com/wasmstream/wasmstream/internal/state"
)

// part is a share of this worker's tasks that started together: an
// engine pipeline running those tasks (engine.ClusterPart) in a data dir
// of its own, restored from the last completed cluster checkpoint. A
// worker runs one part per set of tasks it gained at once, so that tasks
// it keeps go on while gained ones start (follow.go).
type part struct {
	w *worker
	p *engine.Pipeline
	// dir is the part's data dir, removed when it stops.
	dir string
	// cfg is the pipeline at the parallelism of the assignment the part
	// started under (a rescale makes it differ from the file's), in dir.
	cfg   *config.Pipeline
	epoch atomic.Uint64

	mu sync.Mutex
	// tasks are the tasks the part runs; released ones leave it.
	tasks    map[string][]int
	triggers map[uint64]pendingRound // asked for, not yet persisted

	fence *fence // holds outputs back unless the tasks were confirmed lately
	// runCtx ends when the part is halted: a Persist waiting for the
	// coordinator (which may be gone) must not hold the stop up.
	runCtx context.Context
	stop   func()
	done   chan struct{}
	err    error // Run's result, once done is closed
}

// pendingRound is a trigger the part was given and the worker's gather
// of the parts' shares of it.
type pendingRound struct {
	t      trigger
	gather *ackGather
}

// startPart restores the tasks mine of assignment a from the last
// completed cluster checkpoint into a new part and starts running them.
// stored is when the server stored a: the log gives the tasks' wait since
// then, the pause of moved tasks up to their start (their replay follows).
func (w *worker) startPart(ctx context.Context, a assign.Assignment, mine map[string][]int, confirmed, stored time.Time) (*part, error) {
	started := time.Now()
	cfg := atParallelism(w.cfg, a)
	w.parts++
	cfg.DataDir = filepath.Join(partsDir(w.cfg), strconv.Itoa(w.parts))
	restored, err := w.materialize(ctx, cfg, mine)
	if err != nil {
		_ = os.RemoveAll(cfg.DataDir)
		return nil, err
	}
	pt := &part{w: w, dir: cfg.DataDir, cfg: cfg, tasks: mine, triggers: map[uint64]pendingRound{}, fence: newFence(), done: make(chan struct{})}
	pt.fence.confirm(confirmed)
	pt.epoch.Store(a.Epoch)
	opts := w.base
	opts.Recovery = engine.RecoveryOptions{}
	opts.Cluster = &engine.ClusterPart{Tasks: mine, Persist: pt.persist, PublishedThrough: pt.publishedThrough, MarkPublished: pt.markPublished,
		Gate: func(ctx context.Context) error { return pt.fence.wait(ctx, w.askAssignment) }, Worker: w.id,
		CacheDir: w.cacheDir()}
	if pt.p, err = engine.Open(ctx, cfg, opts); err != nil {
		_ = os.RemoveAll(cfg.DataDir)
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	pt.runCtx, pt.stop = runCtx, cancel
	go func() {
		defer close(pt.done)
		pt.err = pt.p.Run(runCtx)
		pt.p.Close()
	}()
	w.log.Info("tasks started", "worker", w.id, "assignment", a.Epoch, "tasks", mine, "restored_checkpoint", restored,
		"startup", time.Since(started), "since_assignment", time.Since(stored).Round(time.Millisecond), "part", filepath.Base(cfg.DataDir))
	return pt, nil
}

// cacheDir is the compilation cache the worker's parts share.
func (w *worker) cacheDir() string { return filepath.Join(w.cfg.DataDir, "cache", "wazero") }

// partsDir holds the data dirs of a worker's parts; none outlives the
// worker process (a part always restores from the cluster's checkpoints).
func partsDir(cfg *config.Pipeline) string { return filepath.Join(cfg.DataDir, "parts") }

// materialize fills the data dir of cfg (a new part's) with the owned
// tasks' part of the last completed cluster checkpoint, as a local
// checkpoint the engine restores (global.Materialize); 0 and empty state
// before the first. The Object Store, not the data dir, holds the
// cluster's checkpoints.
func (w *worker) materialize(ctx context.Context, cfg *config.Pipeline, mine map[string][]int) (uint64, error) {
	if err := os.MkdirAll(cfg.DataDir, privatefs.DirMode); err != nil {
		return 0, err
	}
	if err := recovery.RemoveRunState(cfg.DataDir); err != nil {
		return 0, err
	}
	latest, err := ctlrec.Latest(ctx, w.bucket)
	if errors.Is(err, lease.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	m, err := global.ReadManifest(ctx, w.obs, latest.Manifest, latest.SHA256)
	if err != nil {
		return 0, fmt.Errorf("cluster checkpoint %d: %w", latest.Checkpoint, err)
	}
	scratch := filepath.Join(cfg.DataDir, "cluster", "restore")
	if _, err := global.MaterializeRanges(ctx, w.ship, m, rangesOf(cfg, mine), engine.CheckpointRoot(cfg), scratch); err != nil {
		return 0, fmt.Errorf("restore cluster checkpoint %d: %w", latest.Checkpoint, err)
	}
	return latest.Checkpoint, nil
}

// atParallelism returns cfg with every operator at its parallelism in a.
func atParallelism(cfg *config.Pipeline, a assign.Assignment) *config.Pipeline {
	out := *cfg
	out.Operators = slices.Clone(cfg.Operators)
	for i := range out.Operators {
		if p := parallelismOf(a, out.Operators[i].Name); p > 0 {
			out.Operators[i].Parallelism = p
		}
	}
	return &out
}

// rangesOf maps the tasks mine to their key-group ranges under cfg.
func rangesOf(cfg *config.Pipeline, mine map[string][]int) map[string][]state.KeyGroupRange {
	out := map[string][]state.KeyGroupRange{}
	for op, idxs := range mine {
		oc := cfg.Operator(op)
		for _, i := range idxs {
			out[op] = append(out[op], state.RangeForTask(i, oc.Parallelism, oc.MaxParallelism))
		}
	}
	return out
}

// trigger starts checkpoint t on the part's pipeline; the engine's Persist
// (persist) finds t by its id and hands its share to g.
func (pt *part) trigger(t trigger, g *ackGather) {
	pt.mu.Lock()
	pt.triggers[t.Checkpoint] = pendingRound{t: t, gather: g}
	pt.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), pt.w.timeout+10*time.Second)
		defer cancel()
		r, err := pt.p.TriggerID(ctx, t.Checkpoint, t.Generation, t.Handover)
		if err == nil && r.Error != "" {
			err = errors.New(r.Error)
		}
		if err != nil {
			pt.w.log.Warn("cluster checkpoint failed on this worker", "checkpoint", t.Checkpoint, "error", err)
			if g.fail(pt, err) {
				// The engine refused the checkpoint (its previous one is
				// still in progress) or failed it before the part's share:
				// without a decline the coordinator would wait for the
				// checkpoint timeout, and scale requests and
				// reassignments with it.
				pt.w.decline(t, "its checkpoint failed before its share: "+err.Error())
			}
		}
		pt.mu.Lock()
		delete(pt.triggers, t.Checkpoint)
		pt.mu.Unlock()
	}()
}

func (pt *part) roundOf(id uint64) (pendingRound, bool) {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	r, ok := pt.triggers[id]
	return r, ok
}

// tasksNow are the tasks the part runs (ReleaseTasks shrinks them).
func (pt *part) tasksNow() map[string][]int {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	return pt.tasks
}

// release hands tasks over: the part stops running them and leaves them
// out of its checkpoints, the others go on (engine.ReleaseTasks).
func (pt *part) release(tasks map[string][]int) error {
	if err := pt.p.ReleaseTasks(tasks); err != nil {
		return err
	}
	pt.mu.Lock()
	defer pt.mu.Unlock()
	kept := map[string][]int{}
	for op, idxs := range pt.tasks {
		for _, i := range idxs {
			if !slices.Contains(tasks[op], i) {
				kept[op] = append(kept[op], i)
			}
		}
	}
	pt.tasks = kept
	return nil
}

// persist is the part's engine.ClusterPart.Persist: it ships every task
// checkpoint of the cut, hands them to the worker's ack (ackGather) and
// waits for the checkpoint's outcome, so the engine publishes
// transactional outputs only for a completed cluster checkpoint.
func (pt *part) persist(ctx context.Context, m checkpoint.Manifest, db *pebble.DB) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(pt.runCtx, cancel)()
	r, ok := pt.roundOf(m.ID)
	if !ok {
		return fmt.Errorf("%w: %d", errNotTriggered, m.ID)
	}
	t := r.t
	tasks := pt.tasksNow()
	parts, err := pt.shipUnlessGivenUp(ctx, t, m, db, tasks)
	if err != nil {
		r.gather.fail(pt, err)
		pt.w.decline(t, "its snapshot failed: "+err.Error())
		return err
	}
	var infos []global.OperatorInfo
	for _, e := range m.Operators {
		if len(tasks[e.Name]) > 0 {
			infos = append(infos, global.InfoOf(e))
		}
	}
	if err := r.gather.contribute(ctx, pt, share{sources: m.Sources, operators: infos, tasks: parts}); err != nil {
		return err
	}
	return pt.w.awaitOutcome(ctx, t.Checkpoint, pt.w.timeout)
}

// ship uploads one task checkpoint per task of the cut and returns its
// parts: one per manifest entry (the engine may split a task's entry).
// Released tasks, whose entries the engine still writes, are left out.
func (pt *part) ship(ctx context.Context, t trigger, m checkpoint.Manifest, db *pebble.DB, tasks map[string][]int) ([]global.TaskPart, error) {
	dir := filepath.Join(pt.dir, "cluster", "snapshots")
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, privatefs.DirMode); err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var parts []global.TaskPart
	for _, e := range m.Operators {
		oc := pt.cfg.Operator(e.Name)
		for _, idx := range slices.Sorted(slices.Values(tasks[e.Name])) {
			r := state.RangeForTask(idx, oc.Parallelism, oc.MaxParallelism)
			task := ship.Task{Operator: e.Name, MaxParallelism: oc.MaxParallelism, Index: idx, Range: r,
				MetaNames: []string{engine.DeadLetterMeta(e.Name)}}
			snap, err := pt.w.ship.Snapshot(db, filepath.Join(dir, fmt.Sprintf("%s-%d", e.Name, idx)), task)
			if err != nil {
				return nil, err
			}
			res, err := pt.w.ship.Upload(ctx, snap, global.TaskObject(t.Checkpoint, t.Generation, t.Assignment, pt.w.id, e.Name, r.Start))
			_ = os.RemoveAll(snap.Dir)
			if err != nil {
				return nil, err
			}
			for _, te := range e.Tasks {
				if te.Start >= r.Start && te.End <= r.End {
					parts = append(parts, global.TaskPart{Operator: e.Name, Index: idx, Entry: te, Object: res.ManifestObject,
						SHA256: res.ManifestSHA256, Bytes: res.BytesTotal, BytesNew: res.BytesUploaded})
				}
			}
		}
	}
	return parts, nil
}

// sendAck hands ack to the coordinator, retrying until it answers (an
// election or a coordinator change may take seconds) or the checkpoint
// timeout.
func (w *worker) sendAck(ctx context.Context, ack global.Ack) error {
	data, err := global.EncodeAck(ack)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(w.timeout)
	for {
		msg, err := w.conn.NC.RequestWithContext(withTimeout(ctx, 5*time.Second), w.subj.ack, data)
		if err == nil {
			r, derr := decode[ackReply](msg.Data, "ack reply")
			if derr != nil {
				return derr
			}
			if r.Error != "" {
				return fmt.Errorf("%w: checkpoint %d: the coordinator refused this worker's ack: %s", errAborted, ack.Checkpoint, r.Error)
			}
			return nil
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			return fmt.Errorf("checkpoint %d: no coordinator took this worker's ack: %w", ack.Checkpoint, err)
		}
		if err := sleep(ctx, 500*time.Millisecond); err != nil {
			return err
		}
	}
}

func withTimeout(ctx context.Context, d time.Duration) context.Context {
	c, cancel := context.WithTimeout(ctx, d)
	context.AfterFunc(c, cancel)
	return c
}

// halt stops the part's pipeline (no final checkpoint: its tasks restore
// from the last cluster checkpoint wherever they run next), waits, and
// removes its data dir.
func (pt *part) halt() {
	pt.fence.stop()
	pt.stop()
	<-pt.done
	if err := os.RemoveAll(pt.dir); err != nil {
		pt.w.log.Warn("removing a stopped part's data dir failed", "dir", pt.dir, "error", err)
	}
}

// exited reports whether the part's pipeline stopped by itself, and why.
func (pt *part) exited() (bool, error) {
	select {
	case <-pt.done:
		return true, pt.err
	default:
		return false, nil
	}
}
