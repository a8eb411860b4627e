// Package coordinator drives the checkpoint protocol's coordinator
// (internal/protocol) inside a pipeline process: it owns the timer the
// core asks for, feeds it the reports of sources and tasks, performs its
// actions through the narrow Effects interface, and answers on-demand
// triggers. It knows nothing of tasks, NATS or Pebble; a cluster
// coordinator will be another driver of the same core.
package coordinator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/crashpoint"
	"github.com/wasmstream/wasmstream/internal/protocol"
)

// MaxFailuresInARow is how many checkpoints in a row may fail (a full
// disk, say) before the pipeline stops: past that the replay after a crash
// would keep growing while nobody notices.
const MaxFailuresInARow = 3

// Effects is what the driver asks of the rest of the engine: each method
// carries out one action of the protocol core.
type Effects interface {
	// InjectBarriers hands the barrier request to every source.
	InjectBarriers(req protocol.InjectBarriers) error
	// CancelCheckpoint tells every task that checkpoint id was given up.
	CancelCheckpoint(id uint64)
	// PersistCheckpoint makes a collected checkpoint durable and returns
	// its manifest: outputs acknowledged, state checkpoint and manifest
	// written.
	PersistCheckpoint(ctx context.Context, p protocol.Persist) (checkpoint.Manifest, error)
	// PublishCheckpoint makes the transactional outputs staged up to id
	// visible.
	PublishCheckpoint(ctx context.Context, id uint64) error
	// AckSources acknowledges what the completed checkpoint covers.
	AckSources(ctx context.Context, m checkpoint.Manifest)
	// MarkCleanStop records the final checkpoint of a graceful stop.
	MarkCleanStop(id uint64) error
}

// ErrStopped marks an error that Effects returned because the pipeline
// had already failed: the driver passes it on without counting it as a
// failed checkpoint.
var ErrStopped = errors.New("pipeline stopped after a failure")

// ErrGivenUp marks an error of PersistCheckpoint that means the cluster
// coordinator gave the checkpoint up: the checkpoint fails without
// counting towards the failures in a row that stop the pipeline.
var ErrGivenUp = errors.New("cluster checkpoint given up")

// TriggerResult answers an on-demand checkpoint.
type TriggerResult struct {
	ID       uint64        `json:"id,omitempty"`
	Duration time.Duration `json:"duration_ns,omitempty"`
	Error    string        `json:"error,omitempty"`
}

// Config is what a driver is built from.
type Config struct {
	// Protocol configures the core; its Clock also runs the driver's timer.
	Protocol protocol.CoordinatorConfig
	// Root is the checkpoint directory, which Retain prunes.
	Root   string
	Retain int
	// Restored is the checkpoint the run restored (0: none). Retention
	// keeps it until the run has written Retain checkpoints, and removes
	// the ones the restore skipped first (checkpoint.RetainWith).
	Restored uint64
	Logger   hclog.Logger
	Crash    *crashpoint.Points
	// Reports carries the reports of sources and tasks to the driver.
	Reports <-chan protocol.Event
	Effects Effects
	// Outage tells an error of PersistCheckpoint or PublishCheckpoint that
	// means only that NATS was unreachable (natsio.IsOutage): the core
	// does not count it as a failed checkpoint. Nil: none is.
	Outage func(error) bool
	// Part: the process is one worker's part of a cluster checkpoint,
	// which the cluster coordinator announces; the part's completions are
	// logged at debug level only.
	Part bool
	// Completed and Failed, when set, are told of every checkpoint
	// announced complete and of every failed one (outage: only because
	// NATS was unreachable), on the driver's goroutine: metrics.
	Completed func(checkpoint.Manifest)
	Failed    func(outage bool)
}

// Driver runs the protocol core's coordinator. One goroutine (the
// pipeline's loop) calls it.
type Driver struct {
	proto *protocol.Coordinator
	cfg   Config
	// manifest is the last persisted checkpoint's.
	manifest       checkpoint.Manifest
	recoveryLogged bool
	finished       bool
	waiters        []waiter
	demand         chan Demand
	// publisher runs the publication the core asked for in its own
	// goroutine (publisher.go), so that checkpoints go on meanwhile.
	publisher publisher
}

// Demand is an on-demand trigger: Answer gets the result of the checkpoint
// it starts or joins. ID, when not 0, numbers the checkpoint
// (protocol.Trigger); a stale one is answered at once with an error.
type Demand struct {
	ID uint64
	// Unaligned asks for an unaligned checkpoint whatever the mode
	// (protocol.Trigger.Overtaking).
	Unaligned bool
	Answer    chan<- TriggerResult
}

// New returns a driver with no checkpoint in progress.
func New(cfg Config) (*Driver, error) {
	proto, err := protocol.NewCoordinator(cfg.Protocol)
	if err != nil {
		return nil, err
	}
	return &Driver{proto: proto, cfg: cfg, demand: make(chan Demand, 16), publisher: newPublisher()}, nil
}

// Timer fires when the core must be ticked (a trigger is due or a
// checkpoint times out); nil when nothing is pending.
func (d *Driver) Timer() <-chan time.Time {
	at, ok := d.proto.NextDeadline()
	if !ok {
		return nil
	}
	return time.After(at.Sub(d.cfg.Protocol.Clock.Now()))
}

// Reports is the channel the loop receives reports on.
func (d *Driver) Reports() <-chan protocol.Event { return d.cfg.Reports }

// Demands is the channel on-demand triggers arrive on (see Ask).
func (d *Driver) Demands() <-chan Demand { return d.demand }

// Finished says the final checkpoint completed: the run may end.
func (d *Driver) Finished() bool { return d.finished }

// waiter is an answer owed: the result of checkpoint id, or of the next
// checkpoint to end when id is 0.
type waiter struct {
	id     uint64
	answer chan<- TriggerResult
}

// Wait registers answer for the result of the next checkpoint to end.
func (d *Driver) Wait(answer chan<- TriggerResult) {
	d.waiters = append(d.waiters, waiter{answer: answer})
}

// Ask queues an on-demand trigger from any goroutine; the loop takes it
// from Demands and hands it to Demanded.
func (d *Driver) Ask(ctx context.Context, answer chan<- TriggerResult, stopped <-chan struct{}) error {
	return d.AskID(ctx, 0, false, answer, stopped)
}

// AskID is Ask for a checkpoint numbered id (0: the next), unaligned
// whatever the mode when unaligned.
func (d *Driver) AskID(ctx context.Context, id uint64, unaligned bool, answer chan<- TriggerResult, stopped <-chan struct{}) error {
	select {
	case d.demand <- Demand{ID: id, Unaligned: unaligned, Answer: answer}:
		return nil
	case <-stopped:
		return errors.New("the pipeline has stopped")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Demanded registers the demand's answer and returns the event to step;
// nil when the demand was answered at once (a stale id).
func (d *Driver) Demanded(dm Demand) protocol.Event {
	if running, _, ok := d.proto.InProgress(); dm.ID != 0 && ok && running != dm.ID && !d.proto.Supersedes(dm.ID) {
		dm.Answer <- TriggerResult{Error: fmt.Sprintf("checkpoint %d asked for while %d is in progress", dm.ID, running)}
		return nil
	}
	if dm.ID != 0 && dm.ID < d.proto.NextID() {
		dm.Answer <- TriggerResult{Error: fmt.Sprintf("checkpoint %d is stale: the next id is %d", dm.ID, d.proto.NextID())}
		return nil
	}
	// Tied to its id: when it supersedes the checkpoint in progress, the
	// failure of that one is not its answer.
	d.waiters = append(d.waiters, waiter{id: dm.ID, answer: dm.Answer})
	return protocol.Trigger{ID: dm.ID, Overtaking: dm.Unaligned}
}

// Step feeds the core one event and performs what follows, until the core
// waits for the next event. A non-nil error stops the pipeline.
func (d *Driver) Step(ctx context.Context, ev protocol.Event) error {
	if _, ok := ev.(protocol.Published); ok {
		d.publisher.running = false
	}
	pending := []protocol.Event{ev}
	for len(pending) > 0 {
		ev, pending = pending[0], pending[1:]
		for _, a := range d.proto.Step(ev) {
			next, err := d.perform(ctx, a)
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
func (d *Driver) perform(ctx context.Context, a protocol.Action) (protocol.Event, error) {
	fx := d.cfg.Effects
	switch a := a.(type) {
	case protocol.InjectBarriers:
		return nil, fx.InjectBarriers(a)
	case protocol.Cancel:
		fx.CancelCheckpoint(a.ID)
	case protocol.Persist:
		return d.persist(ctx, a)
	case protocol.Publish:
		// Its answer comes back through Published: the core announces
		// the checkpoint first (background) or waits for it.
		d.publisher.start(func(ctx context.Context) protocol.Published {
			err := fx.PublishCheckpoint(ctx, a.ID)
			return protocol.Published{ID: a.ID, Err: err, Outage: d.outage(err)}
		})
	case protocol.PublishDeferred:
		d.cfg.Logger.Warn("NATS unreachable: the transactional outputs of the completed checkpoint stay staged and are published again",
			"checkpoint", a.ID, "retry_in", a.RetryAt.Sub(d.cfg.Protocol.Clock.Now()), "error", a.Err)
	case protocol.AckSources:
		fx.AckSources(ctx, d.manifest)
	case protocol.Announce:
		d.announce(d.manifest)
	case protocol.MarkCleanStop:
		if err := fx.MarkCleanStop(a.ID); err != nil {
			d.cfg.Logger.Warn("could not record the clean stop (metrics only)", "error", err)
		}
	case protocol.Retain:
		d.retain()
	case protocol.CheckpointFailed:
		d.checkpointFailed(a)
	case protocol.Fail:
		d.answer(0, TriggerResult{Error: a.Err.Error()})
		return nil, a.Err
	case protocol.Stopped:
		d.finished = true
	}
	return nil, nil
}

func (d *Driver) persist(ctx context.Context, a protocol.Persist) (protocol.Event, error) {
	m, err := d.cfg.Effects.PersistCheckpoint(ctx, a)
	if errors.Is(err, ErrStopped) {
		return nil, err // the failure that stopped the pipeline is reported as is
	}
	if err == nil {
		d.manifest = m
		d.cfg.Crash.Reach("manifest-before-announce")
	}
	return protocol.Persisted{ID: a.ID, Err: err, Outage: d.outage(err), GivenUp: errors.Is(err, ErrGivenUp)}, nil
}

// outage classifies an effect's error with Config.Outage.
func (d *Driver) outage(err error) bool {
	return err != nil && d.cfg.Outage != nil && d.cfg.Outage(err)
}

func (d *Driver) checkpointFailed(a protocol.CheckpointFailed) {
	if d.cfg.Failed != nil {
		d.cfg.Failed(a.Outage)
	}
	d.answer(a.ID, TriggerResult{Error: fmt.Sprintf("checkpoint %d failed: %v", a.ID, a.Err)})
	if a.Outage {
		d.cfg.Logger.Warn("checkpoint failed because NATS is unreachable; the next one retries (not counted as a failure, bounded by server.outage_budget)",
			"checkpoint", a.ID, "error", a.Err)
		return
	}
	if a.GivenUp {
		d.cfg.Logger.Warn("checkpoint given up by the cluster coordinator (not counted as a failure)", "checkpoint", a.ID, "error", a.Err)
		return
	}
	d.cfg.Logger.Error("checkpoint failed; the next one retries", "checkpoint", a.ID, "error", a.Err, "failed_in_a_row", a.InARow)
}

func (d *Driver) retain() {
	o := checkpoint.RetainOptions{Restored: d.cfg.Restored, FirstOwn: d.cfg.Protocol.FirstID}
	if removed, err := checkpoint.RetainWith(d.cfg.Root, d.cfg.Retain, o); err != nil {
		d.cfg.Logger.Warn("removing old checkpoints failed", "error", err)
	} else if len(removed) > 0 {
		d.cfg.Logger.Debug("old checkpoints removed", "ids", removed)
	}
	d.cfg.Crash.Reach("after-retain")
}

func (d *Driver) announce(m checkpoint.Manifest) {
	positions := map[string]uint64{}
	for _, s := range m.Sources {
		positions[s.Name] = s.LastSequence
	}
	dur := time.Duration(m.Metrics.DurationNanos)
	log := d.cfg.Logger.Info
	if d.cfg.Part {
		log = d.cfg.Logger.Debug
	}
	log("checkpoint completed", "checkpoint", m.ID, "duration", dur,
		"alignment", time.Duration(m.Metrics.AlignmentNanos), "max_pause", time.Duration(m.Metrics.MaxPauseNanos),
		"mode", m.Metrics.Mode, "bytes", m.Metrics.BytesTotal, "bytes_new", m.Metrics.BytesNew, "positions", positions)
	if r := m.Metrics.Recovery; r != nil && !d.recoveryLogged {
		d.recoveryLogged = true
		d.cfg.Logger.Info("first checkpoint after a restore", "restored_from", r.FromCheckpoint,
			"recovery_time", time.Duration(r.DurationNanos), "records_replayed_so_far", r.RecordsReplayed)
	}
	if d.cfg.Completed != nil {
		d.cfg.Completed(m)
	}
	d.answer(m.ID, TriggerResult{ID: m.ID, Duration: dur})
}

// answer gives r to the waiters of checkpoint id and to those of whatever
// checkpoint ends next; id 0 (the pipeline fails) answers every waiter.
func (d *Driver) answer(id uint64, r TriggerResult) {
	kept := d.waiters[:0]
	for _, w := range d.waiters {
		if id == 0 || w.id == 0 || w.id == id {
			w.answer <- r
			continue
		}
		kept = append(kept, w)
	}
	d.waiters = kept
}
