package protocol

import (
	"fmt"
	"time"
)

// CoordinatorConfig configures the checkpoint coordinator of a pipeline.
type CoordinatorConfig struct {
	// Sources and Tasks are how many sources report a barrier position and
	// how many tasks acknowledge each checkpoint.
	Sources, Tasks int
	// Mode decides whether barriers overtake queued records.
	Mode Mode
	// Interval between periodic triggers; negative: only on demand and at
	// the final stop.
	Interval time.Duration
	// Timeout gives up a checkpoint whose reports are not all in; at a stop
	// it bounds the wait for the final checkpoint.
	Timeout time.Duration
	// MinPause is the least time from one checkpoint's end to the next
	// periodic trigger.
	MinPause time.Duration
	// MaxFailures is how many checkpoints may fail in a row before the
	// pipeline stops: past that the replay after a crash grows unnoticed.
	// A failure the driver marks as an outage (NATS unreachable) is not
	// counted: it says nothing about the disk, and ends when NATS is back.
	MaxFailures int
	// OutageBudget is how long checkpoints may keep failing because NATS is
	// unreachable, from the start of the first one that did, before the
	// pipeline stops.
	OutageBudget time.Duration
	// MaxUnpublished is how many completed checkpoints may wait for the
	// publication of their transactional outputs when the next periodic
	// checkpoint is triggered (coordinator_publish.go). 0 publishes every
	// checkpoint's outputs before it is announced; a final checkpoint and
	// one that a trigger waits for are always published first.
	MaxUnpublished int
	// FirstID is the id of the first checkpoint (the last completed + 1).
	FirstID uint64
	// Where names the checkpoint storage in errors (a directory, a bucket).
	Where string
	// Server names the NATS server in errors (its URL).
	Server string
	Clock  Clock
}

func (c CoordinatorConfig) validate() error {
	switch {
	case c.Sources < 0 || c.Tasks < 0:
		return fmt.Errorf("%w: %d sources, %d tasks", ErrInvalidConfig, c.Sources, c.Tasks)
	case c.Mode != Aligned && c.Mode != Unaligned:
		return fmt.Errorf("%w: %s (use aligned or unaligned)", ErrInvalidConfig, c.Mode)
	case c.Timeout <= 0:
		return fmt.Errorf("%w: checkpoint timeout %s must be positive", ErrInvalidConfig, c.Timeout)
	case c.MaxFailures < 1:
		return fmt.Errorf("%w: %d failures in a row allowed, need at least 1", ErrInvalidConfig, c.MaxFailures)
	case c.MaxUnpublished < 0:
		return fmt.Errorf("%w: %d unpublished checkpoints allowed, need at least 0", ErrInvalidConfig, c.MaxUnpublished)
	case c.OutageBudget <= 0:
		return fmt.Errorf("%w: outage budget %s must be positive", ErrInvalidConfig, c.OutageBudget)
	case c.FirstID == 0:
		return fmt.Errorf("%w: checkpoint ids start at 1", ErrInvalidConfig)
	case c.Clock == nil:
		return fmt.Errorf("%w: no clock", ErrInvalidConfig)
	}
	return nil
}

type phase int

const (
	collecting phase = iota // barriers injected, reports coming in
	persisting              // Persist asked for
	publishing              // complete on disk, Publish asked for
)

var phaseNames = [...]string{"collecting", "persisting", "publishing"}

// round is the one checkpoint in progress.
type round struct {
	id      uint64
	final   bool
	started time.Time
	phase   phase
	sources []uint64
	tasks   []TaskReport
	missing int // reports not yet in
	have    []bool
	// awaited: a trigger waits for this checkpoint, so its outputs are
	// published before it is announced whatever MaxUnpublished says.
	awaited bool
}

// Coordinator is the checkpoint protocol's coordinator: one checkpoint at
// a time, triggered periodically, on demand or at a stop; complete when
// every source and task reported and the checkpoint is persisted; its
// transactional outputs published before it is announced, or behind it
// (MaxUnpublished, coordinator_publish.go); given up after
// its timeout; the pipeline stopped after MaxFailures failures in a row.
// It does no I/O: a driver feeds it events with Step and performs the
// actions it returns, in order. It is not safe for concurrent use.
type Coordinator struct {
	cfg    CoordinatorConfig
	nextID uint64
	dueAt  time.Time // next periodic trigger
	failed int       // failures since the last completed checkpoint, outages not counted
	// inOutage: a checkpoint failed by an outage since the last completed
	// one; outageSince is the start of the first that did.
	inOutage    bool
	outageSince time.Time
	round       *round
	// pub is the publication of completed checkpoints' outputs, which may
	// run behind the rounds (coordinator_publish.go).
	pub publication
	// stopping: the final checkpoint is asked for; stopBy bounds it.
	stopping bool
	stopBy   time.Time
	done     bool // Stopped or Fail returned: nothing more happens
}

// NewCoordinator returns an idle coordinator whose first periodic trigger
// is an interval from now.
func NewCoordinator(cfg CoordinatorConfig) (*Coordinator, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Coordinator{cfg: cfg, nextID: cfg.FirstID, dueAt: cfg.Clock.Now().Add(cfg.Interval)}, nil
}

// Step feeds the coordinator one event and returns the actions to perform.
func (c *Coordinator) Step(ev Event) []Action {
	if c.done {
		return nil
	}
	var actions []Action
	switch ev := ev.(type) {
	case Tick:
		actions = c.tick()
	case Trigger:
		actions = c.triggered(ev)
	case Stop:
		actions = c.stop()
	case SourceReported:
		actions = c.sourceReported(ev)
	case TaskAcked:
		actions = c.taskAcked(ev)
	case Persisted:
		actions = c.persisted(ev)
	case Published:
		actions = c.published(ev)
	default:
		actions = c.fail(fmt.Errorf("protocol: unknown event %T", ev))
	}
	return actions
}

// NextDeadline returns when the driver must Tick next. False: no time-out
// or periodic trigger is pending.
func (c *Coordinator) NextDeadline() (time.Time, bool) {
	if c.done {
		return time.Time{}, false
	}
	var at time.Time
	earliest := func(t time.Time) {
		if at.IsZero() || t.Before(at) {
			at = t
		}
	}
	if c.pub.retrying {
		earliest(c.pub.retryAt)
	}
	switch {
	case c.round != nil && c.stopping:
		earliest(c.stopBy)
	case c.round != nil && c.round.phase == collecting:
		earliest(c.round.started.Add(c.cfg.Timeout))
	case c.round == nil && !c.stopping && c.cfg.Interval >= 0 && c.mayTrigger():
		earliest(c.dueAt)
	}
	return at, !at.IsZero()
}

// NextID is the id the next checkpoint takes.
func (c *Coordinator) NextID() uint64 { return c.nextID }

// InProgress returns the checkpoint in progress, if any.
func (c *Coordinator) InProgress() (id uint64, final bool, ok bool) {
	if c.round == nil {
		return 0, false, false
	}
	return c.round.id, c.round.final, true
}

// State describes the coordinator for scripts and debug logs.
func (c *Coordinator) State() string {
	s := fmt.Sprintf("next=%d failed=%d", c.nextID, c.failed)
	if c.stopping {
		s += " stopping"
	}
	if c.done {
		s += " done"
	}
	if c.inOutage {
		s += fmt.Sprintf(" outage_for=%s", c.now().Sub(c.outageSince))
	}
	if r := c.round; r != nil {
		s += fmt.Sprintf(" round=%d %s missing=%d", r.id, phaseNames[r.phase], r.missing)
		if r.final {
			s += " final"
		}
		if r.awaited && c.cfg.MaxUnpublished > 0 {
			s += " awaited"
		}
	}
	return s + c.pub.state(c.cfg.MaxUnpublished > 0)
}

func (c *Coordinator) now() time.Time { return c.cfg.Clock.Now() }

func (c *Coordinator) tick() []Action {
	now := c.now()
	if c.round != nil && c.stopping && !now.Before(c.stopBy) {
		return c.fail(fmt.Errorf("final checkpoint %d not complete after %s; the next run resumes from the last completed checkpoint", c.round.id, c.cfg.Timeout))
	}
	var actions []Action
	if c.pub.retrying && !now.Before(c.pub.retryAt) {
		c.pub.retrying = false
		actions = c.publishNext()
	}
	switch {
	case c.round != nil && c.stopping:
	case c.round != nil && c.round.phase == collecting:
		if !now.Before(c.round.started.Add(c.cfg.Timeout)) {
			id := c.round.id
			actions = append(actions, Cancel{ID: id})
			actions = append(actions, c.roundFailed(fmt.Errorf("not complete after %s (checkpoint timeout)", c.cfg.Timeout), false)...)
		}
	case c.round == nil:
		actions = append(actions, c.periodic()...)
	}
	return actions
}

// periodic triggers the periodic checkpoint once it is due, unless too
// many completed checkpoints still wait for their publication.
func (c *Coordinator) periodic() []Action {
	if c.stopping || c.cfg.Interval < 0 || c.now().Before(c.dueAt) || !c.mayTrigger() {
		return nil
	}
	return c.trigger(false, false)
}

func (c *Coordinator) stop() []Action {
	if c.stopping {
		return nil
	}
	c.stopping, c.stopBy = true, c.now().Add(c.cfg.Timeout)
	if c.round == nil {
		return c.trigger(true, false)
	}
	return nil // the checkpoint in progress finishes first
}

// givenUp ends the round in progress, which the cluster coordinator gave
// up, without counting it as a failure: the cluster coordinator counts
// its own rounds, and a part that stopped itself after a few of them
// would only replay more.
func (c *Coordinator) givenUp(err error) []Action {
	failed := CheckpointFailed{ID: c.round.id, Err: err, InARow: c.failed, GivenUp: true}
	c.round = nil
	return []Action{failed}
}

// Supersedes reports whether a trigger numbered id gives up the
// checkpoint in progress for itself. A cluster coordinator numbers its
// rounds in order and claims each before its trigger, so a newer id means
// the round in progress here will never complete: it missed its
// coordinator's timeout or another worker failed it. Waiting for this
// process's own (much longer) timeout would refuse every newer round
// meanwhile. Only a round still collecting reports is superseded: one
// being persisted or published finishes first, and a final one is never.
func (c *Coordinator) Supersedes(id uint64) bool {
	r := c.round
	return id != 0 && r != nil && id > r.id && r.phase == collecting && !r.final && !c.stopping
}

// takeID numbers the next checkpoint id when id is not 0; false when id
// is stale (below the next id).
func (c *Coordinator) takeID(id uint64) bool {
	switch {
	case id == 0:
		return true
	case id < c.nextID:
		return false
	}
	c.nextID = id
	return true
}

// triggered: an on-demand trigger starts a checkpoint, or, while one is in
// progress, waits for it (the driver answers it when that one ends),
// unless it supersedes it (Supersedes): then that one is given up and the
// trigger's starts.
func (c *Coordinator) triggered(ev Trigger) []Action {
	var actions []Action
	if c.Supersedes(ev.ID) {
		cancel := Cancel{ID: c.round.id}
		actions = append([]Action{cancel}, c.givenUp(fmt.Errorf("superseded by checkpoint %d: the cluster coordinator gave it up", ev.ID))...)
	}
	if c.round != nil {
		c.round.awaited = true
		return actions
	}
	if c.stopping || !c.takeID(ev.ID) {
		return actions
	}
	actions = append(actions, c.trigger(false, ev.Overtaking)...)
	if c.round != nil {
		c.round.awaited = true
	}
	return actions
}

func (c *Coordinator) trigger(final, overtaking bool) []Action {
	r := &round{id: c.nextID, final: final, started: c.now(), phase: collecting,
		sources: make([]uint64, c.cfg.Sources), tasks: make([]TaskReport, c.cfg.Tasks),
		missing: c.cfg.Sources + c.cfg.Tasks, have: make([]bool, c.cfg.Sources+c.cfg.Tasks)}
	c.nextID++
	c.round = r
	c.dueAt = r.started.Add(c.cfg.Interval)
	actions := []Action{InjectBarriers{ID: r.id, Final: final, Overtaking: (c.cfg.Mode == Unaligned || overtaking) && !final}}
	if r.missing == 0 {
		actions = append(actions, c.collected()...)
	}
	return actions
}

func (c *Coordinator) sourceReported(ev SourceReported) []Action {
	if !c.collectingFor(ev.ID) {
		return nil // a report of a checkpoint given up: superseded
	}
	if ev.Source < 0 || ev.Source >= c.cfg.Sources {
		return c.fail(fmt.Errorf("protocol: checkpoint %d: report of source %d, the pipeline has %d", ev.ID, ev.Source, c.cfg.Sources))
	}
	c.round.sources[ev.Source] = ev.Position
	return c.arrived(ev.Source)
}

func (c *Coordinator) taskAcked(ev TaskAcked) []Action {
	if !c.collectingFor(ev.ID) {
		return nil
	}
	if ev.Task < 0 || ev.Task >= c.cfg.Tasks {
		return c.fail(fmt.Errorf("protocol: checkpoint %d: ack of task %d, the pipeline has %d", ev.ID, ev.Task, c.cfg.Tasks))
	}
	c.round.tasks[ev.Task] = ev.Report
	return c.arrived(c.cfg.Sources + ev.Task)
}

func (c *Coordinator) collectingFor(id uint64) bool {
	return c.round != nil && c.round.id == id && c.round.phase == collecting
}

func (c *Coordinator) arrived(slot int) []Action {
	r := c.round
	if r.have[slot] {
		return nil
	}
	r.have[slot] = true
	if r.missing--; r.missing > 0 {
		return nil
	}
	return c.collected()
}

// collected: every report is in. A task that could not write its snapshot
// fails the checkpoint; otherwise it is persisted.
func (c *Coordinator) collected() []Action {
	r := c.round
	for _, t := range r.tasks {
		if t.Err != nil {
			return c.roundFailed(t.Err, false)
		}
	}
	r.phase = persisting
	return []Action{Persist{ID: r.id, Final: r.final, Started: r.started, Sources: r.sources, Tasks: r.tasks}}
}

func (c *Coordinator) persisted(ev Persisted) []Action {
	r := c.round
	if r == nil || r.id != ev.ID || r.phase != persisting {
		return nil
	}
	if ev.Err != nil && ev.GivenUp && !c.round.final && !c.stopping {
		return c.givenUp(ev.Err)
	}
	if ev.Err != nil {
		return c.roundFailed(ev.Err, ev.Outage)
	}
	c.failed = 0
	c.pub.completed(r.id, r.started)
	if c.cfg.MaxUnpublished > 0 && !r.final && !r.awaited {
		// Its outputs are staged in it, so it is complete and restorable:
		// announce it now and publish behind it.
		return append(c.publishNext(), c.finishRound()...)
	}
	r.phase = publishing
	return c.publishNext()
}

// finishRound: the round's checkpoint is complete (and its outputs visible
// unless they are published behind it): announce it, let sources drop
// what it covers, retire old checkpoints.
func (c *Coordinator) finishRound() []Action {
	r := c.round
	actions := []Action{AckSources{ID: r.id}, Announce{ID: r.id, Duration: c.now().Sub(r.started)}}
	if r.final {
		actions = append(actions, MarkCleanStop{ID: r.id})
	}
	actions = append(actions, Retain{ID: r.id})
	return append(actions, c.endRound()...)
}

// roundFailed ends the round in progress as failed. A failure by an outage
// is not counted towards MaxFailures; the outage budget bounds it instead.
func (c *Coordinator) roundFailed(err error, outage bool) []Action {
	r := c.round
	if r.final {
		inARow := c.failed + 1
		if outage {
			inARow = c.failed
		}
		failed := CheckpointFailed{ID: r.id, Err: err, InARow: inARow, Outage: outage}
		return append([]Action{failed}, c.fail(fmt.Errorf("final checkpoint %d failed: %w; the next run resumes from the last completed checkpoint", r.id, err))...)
	}
	if outage {
		actions := []Action{CheckpointFailed{ID: r.id, Err: err, InARow: c.failed, Outage: true}}
		if c.outageOver(r.started) {
			return append(actions, c.fail(c.outageError(r.id, err))...)
		}
		return append(actions, c.endRound()...)
	}
	c.failed++
	actions := []Action{CheckpointFailed{ID: r.id, Err: err, InARow: c.failed}}
	if c.failed >= c.cfg.MaxFailures {
		return append(actions, c.fail(fmt.Errorf("%d checkpoints in a row failed, the last (%d): %w; fix the cause (disk space, permissions of %s) and restart: the run resumes from the last completed checkpoint",
			c.failed, r.id, err, c.cfg.Where))...)
	}
	return append(actions, c.endRound()...)
}

// endRound clears the round; a stop asked for meanwhile starts the final.
func (c *Coordinator) endRound() []Action {
	final := c.round.final
	id := c.round.id
	c.round = nil
	if next := c.now().Add(c.cfg.MinPause); next.After(c.dueAt) {
		c.dueAt = next
	}
	switch {
	case final:
		c.done = true
		return []Action{Stopped{ID: id}}
	case c.stopping:
		return c.trigger(true, false)
	}
	return nil
}

func (c *Coordinator) fail(err error) []Action {
	c.done = true
	return []Action{Fail{Err: err}}
}
