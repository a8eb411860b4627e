package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/state"
)

// maxFailedCheckpoints is how many checkpoints in a row may fail (a full
// disk, say) before the pipeline stops: past that the replay after a crash
// would keep growing while nobody notices.
const maxFailedCheckpoints = 3

// coordinator triggers checkpoints, one at a time, and completes them once
// every source and task has reported: it waits for the outputs to be
// acknowledged, then writes the Pebble checkpoint and the manifest.
// One goroutine (the pipeline's loop) drives it.
type coordinator struct {
	p       *Pipeline
	opts    CheckpointOptions
	root    string
	nextID  uint64
	crash   *crashPoint
	pending *pendingCheckpoint
	// dueAt is when the next periodic checkpoint is due: an interval after
	// the last trigger, and at least MinPause after the last end.
	dueAt          time.Time
	failed         int
	recoveryLogged bool
	// waiters asked for a checkpoint on demand; answered when the next
	// checkpoint completes or fails.
	waiters []chan<- TriggerResult
	demand  chan chan<- TriggerResult
}

// TriggerResult answers an on-demand checkpoint.
type TriggerResult struct {
	ID       uint64        `json:"id,omitempty"`
	Duration time.Duration `json:"duration_ns,omitempty"`
	Error    string        `json:"error,omitempty"`
}

func newCoordinator(p *Pipeline, lastID uint64) *coordinator {
	return &coordinator{p: p, opts: p.opts.Checkpoint, root: CheckpointRoot(p.cfg), nextID: lastID + 1,
		crash: p.crash, demand: make(chan chan<- TriggerResult, 16), dueAt: time.Now().Add(p.opts.Checkpoint.Interval)}
}

// nextTrigger returns when the next periodic checkpoint is due, or nil.
func (c *coordinator) nextTrigger() <-chan time.Time {
	if c.pending != nil || c.opts.Interval < 0 {
		return nil
	}
	return time.After(time.Until(c.dueAt))
}

// ended records the end of a checkpoint for the minimum pause.
func (c *coordinator) ended() {
	if next := time.Now().Add(c.opts.MinPause); next.After(c.dueAt) {
		c.dueAt = next
	}
}

// pendingDone is closed when the pending checkpoint has every report.
func (c *coordinator) pendingDone() <-chan struct{} {
	if c.pending == nil {
		return nil
	}
	return c.pending.done
}

// start triggers the next checkpoint: every source injects its barrier.
func (c *coordinator) start(final bool) error {
	tasks := 0
	for _, op := range c.p.operators {
		tasks += len(op.tasks)
	}
	c.pending = newPendingCheckpoint(c.nextID, final, len(c.p.sources), tasks)
	c.nextID++
	c.dueAt = c.pending.created.Add(c.opts.Interval)
	for _, s := range c.p.sources {
		select {
		case s.barriers <- barrierRequest{ckpt: c.pending, final: final}:
		case <-c.p.failed:
			return c.p.failure()
		}
	}
	return nil
}

// abandon gives up the pending checkpoint (timeout); its late barriers are
// superseded by the next one.
func (c *coordinator) abandon(reason string) error {
	id := c.pending.id
	c.pending = nil
	c.ended()
	return c.failedCheckpoint(id, errors.New(reason))
}

func (c *coordinator) failedCheckpoint(id uint64, err error) error {
	c.failed++
	c.answer(TriggerResult{Error: fmt.Sprintf("checkpoint %d failed: %v", id, err)})
	c.p.logger.Error("checkpoint failed; the next one retries", "checkpoint", id, "error", err, "failed_in_a_row", c.failed)
	if c.failed >= maxFailedCheckpoints {
		return fmt.Errorf("%d checkpoints in a row failed, the last (%d): %w; fix the cause (disk space, permissions of %s) and restart: the run resumes from the last completed checkpoint",
			c.failed, id, err, c.root)
	}
	return nil
}

// complete finishes the pending checkpoint whose reports are all in.
func (c *coordinator) complete(ctx context.Context) error {
	pc := c.pending
	c.pending = nil
	defer c.ended()
	m, err := c.write(ctx, pc)
	if err != nil {
		if errors.Is(err, errPipelineFailed) {
			return c.p.failure()
		}
		if pc.final {
			c.answer(TriggerResult{Error: err.Error()})
			return fmt.Errorf("final checkpoint %d failed: %w; the next run resumes from the last completed checkpoint", pc.id, err)
		}
		return c.failedCheckpoint(pc.id, err)
	}
	c.failed = 0
	c.crash.reach("manifest-before-announce")
	// The checkpoint is complete on disk: its transactional outputs become
	// visible, before the trigger is answered.
	if err := c.p.publishCommitted(ctx, m.ID); err != nil {
		return err
	}
	c.p.ackSources(ctx, m)
	c.announce(m)
	if pc.final {
		if err := writeCleanStop(c.p.cfg.DataDir, m.ID); err != nil {
			c.p.logger.Warn("could not record the clean stop (metrics only)", "error", err)
		}
	}
	if removed, err := checkpoint.Retain(c.root, c.opts.Retain); err != nil {
		c.p.logger.Warn("removing old checkpoints failed", "error", err)
	} else if len(removed) > 0 {
		c.p.logger.Debug("old checkpoints removed", "ids", removed)
	}
	c.crash.reach("after-retain")
	return nil
}

// write turns the reports of pc into checkpoint files.
func (c *coordinator) write(ctx context.Context, pc *pendingCheckpoint) (checkpoint.Manifest, error) {
	for _, op := range c.p.operators {
		for _, t := range op.tasks {
			if err := pc.report(t).err; err != nil {
				return checkpoint.Manifest{}, err
			}
		}
	}
	// Every output of a record in the cut must be durable before the cut
	// is: a crash after the manifest must not lose an output.
	if err := c.p.sink.Flush(ctx); err != nil {
		return checkpoint.Manifest{}, fmt.Errorf("waiting for output acknowledgements: %w", err)
	}
	if err := c.commitDeadLetters(); err != nil {
		return checkpoint.Manifest{}, err
	}
	c.crash.reach("tasks-snapshotted")
	m := c.manifest(pc)
	return checkpoint.WriteWithHook(c.root, c.p.store.DB(), m, func(s checkpoint.Step) { c.crash.reach(string(s)) })
}

func (c *coordinator) commitDeadLetters() error {
	b := c.p.store.NewBatch()
	defer b.Close()
	if err := c.p.dead.putAll(b); err != nil {
		return err
	}
	return b.Commit(pebble.NoSync)
}

func (c *coordinator) manifest(pc *pendingCheckpoint) checkpoint.Manifest {
	m := checkpoint.Manifest{ID: pc.id, Created: pc.created, Config: c.p.cfg.Text, Metrics: checkpoint.Metrics{Mode: "aligned"}}
	for i, s := range c.p.sources {
		m.Sources = append(m.Sources, checkpoint.SourcePosition{Name: s.cfg.Name, Stream: s.cfg.Stream,
			StreamCreated: s.src.Identity().Created, LastSequence: pc.position(i)})
	}
	for _, op := range c.p.operators {
		e := checkpoint.OperatorEntry{Name: op.cfg.Name, ModuleSHA256: op.module.Hash(), ABIVersion: abi.Version,
			StateFormatVersion: state.FormatVersion, StateVersion: op.cfg.StateVersion, MaxParallelism: op.cfg.MaxParallelism}
		if v := op.stateVersions(); len(v) > 0 {
			e.StateVersions = v
		}
		for _, t := range op.tasks {
			r := pc.report(t)
			kgr := t.backend.Options().Range
			entry := checkpoint.TaskEntry{KeyGroupRange: checkpoint.KeyGroupRange{Start: kgr.Start, End: kgr.End},
				Inputs: r.inputs, PauseNanos: int64(r.pause), AlignmentNanos: int64(r.alignment), Unaligned: r.unaligned}
			e.Tasks = append(e.Tasks, t.skip.split(entry, c.p.sourceIndex())...)
			m.Metrics.AlignmentNanos = max(m.Metrics.AlignmentNanos, int64(r.alignment))
			m.Metrics.MaxPauseNanos = max(m.Metrics.MaxPauseNanos, int64(r.pause))
			if r.unaligned {
				m.Metrics.Mode = "unaligned"
			}
		}
		m.Operators = append(m.Operators, e)
	}
	m.Metrics.Recovery = c.p.recoveryMetrics()
	return m
}

func (c *coordinator) announce(m checkpoint.Manifest) {
	positions := map[string]uint64{}
	for _, s := range m.Sources {
		positions[s.Name] = s.LastSequence
	}
	dur := time.Duration(m.Metrics.DurationNanos)
	c.p.logger.Info("checkpoint completed", "checkpoint", m.ID, "duration", dur,
		"alignment", time.Duration(m.Metrics.AlignmentNanos), "max_pause", time.Duration(m.Metrics.MaxPauseNanos),
		"mode", m.Metrics.Mode, "bytes", m.Metrics.BytesTotal, "bytes_new", m.Metrics.BytesNew, "positions", positions)
	if r := m.Metrics.Recovery; r != nil && !c.recoveryLogged {
		c.recoveryLogged = true
		c.p.logger.Info("first checkpoint after a restore", "restored_from", r.FromCheckpoint,
			"recovery_time", time.Duration(r.DurationNanos), "records_replayed_so_far", r.RecordsReplayed)
	}
	c.answer(TriggerResult{ID: m.ID, Duration: dur})
}

func (c *coordinator) answer(r TriggerResult) {
	for _, w := range c.waiters {
		w <- r
	}
	c.waiters = nil
}

// Trigger asks for a checkpoint now (or the one in progress) and waits
// until it completes or fails.
func (p *Pipeline) Trigger(ctx context.Context) (TriggerResult, error) {
	answer := make(chan TriggerResult, 1)
	select {
	case p.coord.demand <- answer:
	case <-p.stopped:
		return TriggerResult{}, errors.New("the pipeline has stopped")
	case <-ctx.Done():
		return TriggerResult{}, ctx.Err()
	}
	select {
	case r := <-answer:
		return r, nil
	case <-p.stopped:
		return TriggerResult{}, errors.New("the pipeline stopped before the checkpoint completed")
	case <-ctx.Done():
		return TriggerResult{}, ctx.Err()
	}
}
