package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/protocol"
)

// maxFailedCheckpoints is how many checkpoints in a row may fail (a full
// disk, say) before the pipeline stops: past that the replay after a crash
// would keep growing while nobody notices.
const maxFailedCheckpoints = 3

// checkpointEffects is what the coordinator driver asks of the rest of the
// engine: each method carries out one action of the protocol core.
type checkpointEffects interface {
	// injectBarriers hands the barrier request to every source.
	injectBarriers(req protocol.InjectBarriers) error
	// cancelCheckpoint tells every task that checkpoint id was given up.
	cancelCheckpoint(id uint64)
	// persistCheckpoint makes a collected checkpoint durable and returns
	// its manifest: outputs acknowledged, state checkpoint and manifest
	// written.
	persistCheckpoint(ctx context.Context, p protocol.Persist) (checkpoint.Manifest, error)
	// publishCheckpoint makes the transactional outputs staged up to id
	// visible.
	publishCheckpoint(ctx context.Context, id uint64) error
	// ackSources acknowledges what the completed checkpoint covers.
	ackSources(ctx context.Context, m checkpoint.Manifest)
	// markCleanStop records the final checkpoint of a graceful stop.
	markCleanStop(id uint64) error
}

// coordinator drives the protocol core's coordinator: it owns its timer,
// feeds it the reports of sources and tasks, performs its actions through
// checkpointEffects, and answers on-demand triggers. One goroutine (the
// pipeline's loop) drives it.
type coordinator struct {
	proto   *protocol.Coordinator
	fx      checkpointEffects
	opts    CheckpointOptions
	root    string
	logger  hclog.Logger
	crash   *crashPoint
	reports reports
	// manifest is the last persisted checkpoint's.
	manifest       checkpoint.Manifest
	recoveryLogged bool
	// finished: the final checkpoint completed; the run may end.
	finished bool
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

// coordinatorConfig is what a coordinator driver is built from.
type coordinatorConfig struct {
	opts             CheckpointOptions
	root             string
	sources, tasks   int
	lastCompleted    uint64
	logger           hclog.Logger
	crash            *crashPoint
	reports          reports
	effects          checkpointEffects
	maxFailuresInRow int
}

func newCoordinator(cc coordinatorConfig) (*coordinator, error) {
	proto, err := protocol.NewCoordinator(protocol.CoordinatorConfig{
		Sources: cc.sources, Tasks: cc.tasks, Mode: cc.opts.Mode, Interval: cc.opts.Interval, Timeout: cc.opts.Timeout,
		MinPause: cc.opts.MinPause, MaxFailures: cc.maxFailuresInRow, FirstID: cc.lastCompleted + 1, Where: cc.root, Clock: cc.opts.Clock})
	if err != nil {
		return nil, err
	}
	return &coordinator{proto: proto, fx: cc.effects, opts: cc.opts, root: cc.root, logger: cc.logger, crash: cc.crash,
		reports: cc.reports, demand: make(chan chan<- TriggerResult, 16)}, nil
}

// timer fires when the protocol must be ticked (a trigger is due or a
// checkpoint times out); nil when nothing is pending.
func (c *coordinator) timer() <-chan time.Time {
	at, ok := c.proto.NextDeadline()
	if !ok {
		return nil
	}
	return time.After(at.Sub(c.opts.Clock.Now()))
}

// step feeds the protocol one event and performs what follows, until the
// protocol waits for the next event. A non-nil error stops the pipeline.
func (c *coordinator) step(ctx context.Context, ev protocol.Event) error {
	pending := []protocol.Event{ev}
	for len(pending) > 0 {
		ev, pending = pending[0], pending[1:]
		for _, a := range c.proto.Step(ev) {
			next, err := c.perform(ctx, a)
			if err != nil {
				return err
			}
			if next != nil {
				pending = append(pending, next)
			}
		}
	}
	return nil
}

// perform carries out one action; persist and publish answer with the
// event that reports their outcome.
func (c *coordinator) perform(ctx context.Context, a protocol.Action) (protocol.Event, error) {
	switch a := a.(type) {
	case protocol.InjectBarriers:
		return nil, c.fx.injectBarriers(a)
	case protocol.Cancel:
		c.fx.cancelCheckpoint(a.ID)
	case protocol.Persist:
		return c.persist(ctx, a)
	case protocol.Publish:
		c.crash.reach("manifest-before-announce")
		// Complete on disk: the transactional outputs become visible
		// before the checkpoint is announced and triggers are answered.
		return protocol.Published{ID: a.ID, Err: c.fx.publishCheckpoint(ctx, a.ID)}, nil
	case protocol.AckSources:
		c.fx.ackSources(ctx, c.manifest)
	case protocol.Announce:
		c.announce(c.manifest)
	case protocol.MarkCleanStop:
		if err := c.fx.markCleanStop(a.ID); err != nil {
			c.logger.Warn("could not record the clean stop (metrics only)", "error", err)
		}
	case protocol.Retain:
		c.retain()
	case protocol.CheckpointFailed:
		c.answer(TriggerResult{Error: fmt.Sprintf("checkpoint %d failed: %v", a.ID, a.Err)})
		c.logger.Error("checkpoint failed; the next one retries", "checkpoint", a.ID, "error", a.Err, "failed_in_a_row", a.InARow)
	case protocol.Fail:
		c.answer(TriggerResult{Error: a.Err.Error()})
		return nil, a.Err
	case protocol.Stopped:
		c.finished = true
	}
	return nil, nil
}

func (c *coordinator) persist(ctx context.Context, a protocol.Persist) (protocol.Event, error) {
	m, err := c.fx.persistCheckpoint(ctx, a)
	if errors.Is(err, errPipelineFailed) {
		return nil, err // the failure that stopped the pipeline is reported as is
	}
	if err == nil {
		c.manifest = m
	}
	return protocol.Persisted{ID: a.ID, Err: err}, nil
}

func (c *coordinator) retain() {
	if removed, err := checkpoint.Retain(c.root, c.opts.Retain); err != nil {
		c.logger.Warn("removing old checkpoints failed", "error", err)
	} else if len(removed) > 0 {
		c.logger.Debug("old checkpoints removed", "ids", removed)
	}
	c.crash.reach("after-retain")
}

func (c *coordinator) announce(m checkpoint.Manifest) {
	positions := map[string]uint64{}
	for _, s := range m.Sources {
		positions[s.Name] = s.LastSequence
	}
	dur := time.Duration(m.Metrics.DurationNanos)
	c.logger.Info("checkpoint completed", "checkpoint", m.ID, "duration", dur,
		"alignment", time.Duration(m.Metrics.AlignmentNanos), "max_pause", time.Duration(m.Metrics.MaxPauseNanos),
		"mode", m.Metrics.Mode, "bytes", m.Metrics.BytesTotal, "bytes_new", m.Metrics.BytesNew, "positions", positions)
	if r := m.Metrics.Recovery; r != nil && !c.recoveryLogged {
		c.recoveryLogged = true
		c.logger.Info("first checkpoint after a restore", "restored_from", r.FromCheckpoint,
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
