package protocol

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrInputOutOfRange marks a chunk or barrier on an input the task lacks.
var ErrInputOutOfRange = errors.New("protocol: input out of range")

// ErrBarrierOrder marks a barrier whose id does not exceed the previous
// barrier on the same input (a duplicate, a reordering or id 0). Sources
// number barriers 1, 2, ... on FIFO queues, so this is an upstream bug: the
// task's state is left unchanged and the task should fail. (An overtaking
// barrier older than the newest is not: see Barrier.)
var ErrBarrierOrder = errors.New("protocol: barrier id not increasing on input")

// TaskConfig configures the protocol of one operator task.
type TaskConfig struct {
	// Inputs is the number of the task's inputs (at least 1).
	Inputs int
	// Mode is the alignment mode.
	Mode Mode
	// AlignmentTimeout switches an aligned checkpoint to unaligned once the
	// task has waited this long since its first barrier (0 = never).
	AlignmentTimeout time.Duration
	// Downstream is the number of outputs that carry barriers on to other
	// tasks (0 in a single stage: Forward is never asked for).
	Downstream int
	// Start[i]: the task's state already holds every record of input i up
	// to this sequence (where the input resumes, minus one). Nil: zeros.
	Start []uint64
	// Clock measures alignment.
	Clock Clock
}

func (c TaskConfig) validate() error {
	switch {
	case c.Inputs < 1:
		return fmt.Errorf("%w: inputs=%d, a task needs at least 1 input", ErrInvalidConfig, c.Inputs)
	case c.Mode != Aligned && c.Mode != Unaligned:
		return fmt.Errorf("%w: %s (use aligned or unaligned)", ErrInvalidConfig, c.Mode)
	case c.AlignmentTimeout < 0:
		return fmt.Errorf("%w: negative alignment timeout %s (use 0 for none)", ErrInvalidConfig, c.AlignmentTimeout)
	case c.Start != nil && len(c.Start) != c.Inputs:
		return fmt.Errorf("%w: %d start positions for %d inputs", ErrInvalidConfig, len(c.Start), c.Inputs)
	case c.Clock == nil:
		return fmt.Errorf("%w: no clock", ErrInvalidConfig)
	}
	return nil
}

// Task is the checkpoint protocol of one operator task: which chunks to
// hold while barriers align, when to snapshot and with which positions,
// when to acknowledge. It does no I/O and starts nothing; the task's one
// goroutine drives it and performs the actions it returns, in order.
type Task struct {
	cfg TaskConfig

	// covered[i]: every record of input i up to this sequence that was
	// routed to the task has been processed.
	covered []uint64
	// lastBarrier[i] is the newest barrier id seen on input i.
	lastBarrier []uint64
	// id is the newest checkpoint started or cancelled; older barriers are
	// stale. active: id is in progress here. snapshotted: its snapshot is
	// taken, so nothing is held any more.
	id          uint64
	active      bool
	snapshotted bool
	first       time.Time // arrival of id's first barrier
	arrived     []bool
	waiting     int
	barrierAt   []uint64
	overtook    []bool
	// held lists the input of each held chunk, in arrival order.
	held []int
}

// NewTask returns the protocol of a task with no checkpoint in progress.
func NewTask(cfg TaskConfig) (*Task, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	t := &Task{cfg: cfg, covered: make([]uint64, cfg.Inputs), lastBarrier: make([]uint64, cfg.Inputs),
		arrived: make([]bool, cfg.Inputs), barrierAt: make([]uint64, cfg.Inputs), overtook: make([]bool, cfg.Inputs)}
	copy(t.covered, cfg.Start)
	return t, nil
}

// Chunk tells the task a chunk of records arrived on input and returns
// what to do with it. A processed chunk is reported with Processed.
func (t *Task) Chunk(input int) (Disposition, error) {
	if err := t.checkInput(input); err != nil {
		return Process, err
	}
	if t.active && !t.snapshotted && t.arrived[input] {
		t.held = append(t.held, input)
		return Hold, nil
	}
	return Process, nil
}

// Processed tells the task it processed a chunk of input whose source had
// routed every record up to upTo.
func (t *Task) Processed(input int, upTo uint64) error {
	if err := t.checkInput(input); err != nil {
		return err
	}
	t.covered[input] = max(t.covered[input], upTo)
	return nil
}

// Barrier tells the task a barrier arrived and returns the actions to
// perform, in order.
func (t *Task) Barrier(b Barrier) ([]TaskAction, error) {
	if err := t.checkInput(b.Input); err != nil {
		return nil, err
	}
	if b.Overtaking && b.ID < t.lastBarrier[b.Input] {
		// Overtaking barriers travel on their own lane: one can lose the race
		// to a newer barrier of the in-band lane (the final one). That newer
		// checkpoint superseded it here already.
		return []TaskAction{Ignored{ID: b.ID, Input: b.Input}}, nil
	}
	if b.ID <= t.lastBarrier[b.Input] {
		return nil, fmt.Errorf("%w: barrier %d on input %d after barrier %d; check the upstream task",
			ErrBarrierOrder, b.ID, b.Input, t.lastBarrier[b.Input])
	}
	t.lastBarrier[b.Input] = b.ID
	if b.ID < t.id || b.ID == t.id && !t.active {
		return []TaskAction{Ignored{ID: b.ID, Input: b.Input}}, nil
	}
	var actions []TaskAction
	if b.ID > t.id {
		actions = t.abort(actions)
		t.begin(b.ID)
	}
	return t.arrive(actions, b), nil
}

// Tick tells the task time has passed. Once an aligned checkpoint has
// waited AlignmentTimeout since its first barrier it turns unaligned: the
// task snapshots at once and releases what it held (those chunks follow
// their barrier, so they are replayed after a restore, not logged).
func (t *Task) Tick() []TaskAction {
	d, ok := t.Deadline()
	if !ok || t.cfg.Clock.Now().Before(d) {
		return nil
	}
	return t.release(t.snapshot(nil))
}

// Cancel tells the task the coordinator gave up checkpoint id. If it is in
// progress it ends and the held chunks are released; if it has not begun
// here, its barriers will be ignored. Older ids change nothing.
func (t *Task) Cancel(id uint64) []TaskAction {
	switch {
	case id == t.id && t.active:
		return t.abort(nil)
	case id > t.id:
		actions := t.abort(nil)
		t.id = id
		return actions
	}
	return nil
}

// Deadline returns when Tick must next be called: the alignment timeout of
// the checkpoint in progress. False when nothing can time out.
func (t *Task) Deadline() (time.Time, bool) {
	if t.cfg.AlignmentTimeout == 0 || !t.active || t.snapshotted {
		return time.Time{}, false
	}
	return t.first.Add(t.cfg.AlignmentTimeout), true
}

// State describes the task for scripts and debug logs.
func (t *Task) State() string {
	covered := "covered=" + uints(t.covered)
	if !t.active {
		return fmt.Sprintf("idle last=%d %s", t.id, covered)
	}
	phase := "aligning"
	if t.snapshotted {
		phase = "snapshotted"
	}
	var waiting []string
	for i, ok := range t.arrived {
		if !ok {
			waiting = append(waiting, fmt.Sprint(i))
		}
	}
	return fmt.Sprintf("%s id=%d waiting=[%s] held=%d %s", phase, t.id, strings.Join(waiting, " "), len(t.held), covered)
}

func (t *Task) checkInput(input int) error {
	if input < 0 || input >= t.cfg.Inputs {
		return fmt.Errorf("%w: input %d, the task has inputs 0..%d", ErrInputOutOfRange, input, t.cfg.Inputs-1)
	}
	return nil
}

func (t *Task) begin(id uint64) {
	t.id, t.active, t.snapshotted, t.first = id, true, false, t.cfg.Clock.Now()
	clear(t.arrived)
	clear(t.overtook)
	t.waiting = t.cfg.Inputs
}

func (t *Task) arrive(actions []TaskAction, b Barrier) []TaskAction {
	t.arrived[b.Input], t.barrierAt[b.Input], t.overtook[b.Input] = true, b.Position, b.Overtaking
	t.waiting--
	// An overtaking barrier in aligned mode is a checkpoint asked to be
	// unaligned (Trigger.Overtaking): it snapshots at once too.
	if (t.cfg.Mode == Unaligned || b.Overtaking) && !t.snapshotted {
		actions = t.snapshot(actions)
	}
	if t.waiting > 0 {
		return actions
	}
	if !t.snapshotted {
		actions = t.snapshot(actions)
	}
	t.active = false
	return t.release(actions)
}

// snapshot cuts the state. An in-band barrier follows exactly the records
// routed before it, so its position is the barrier's. An overtaking one
// may have passed queued records (processed below its position) or, taken
// after a later chunk, be behind it (above): either way what was processed
// is what the state holds, and the cut is unaligned unless they agree.
// Inputs still waiting for their barrier are cut where processing is.
func (t *Task) snapshot(actions []TaskAction) []TaskAction {
	t.snapshotted = true
	s := Snapshot{ID: t.id, Positions: make([]uint64, t.cfg.Inputs), Alignment: t.cfg.Clock.Now().Sub(t.first)}
	for i := range s.Positions {
		pos := t.covered[i]
		switch {
		case t.arrived[i] && !t.overtook[i]:
			pos = t.barrierAt[i]
			// Everything routed up to it is processed: a later unaligned cut of this
			// input must not claim less, or its checkpoint would resume the source
			// before one the earlier cut let go of (a trimmed stream refuses that).
			t.covered[i] = max(t.covered[i], pos)
		case t.arrived[i] && pos == t.barrierAt[i]:
		default:
			s.Unaligned = true
		}
		s.Positions[i] = pos
	}
	actions = append(actions, s, Ack{ID: t.id})
	if t.cfg.Downstream > 0 {
		actions = append(actions, Forward{ID: t.id})
	}
	return actions
}

// release hands the held chunks back in arrival order.
func (t *Task) release(actions []TaskAction) []TaskAction {
	if len(t.held) == 0 {
		return actions
	}
	actions = append(actions, Release{Inputs: t.held})
	t.held = nil
	return actions
}

// abort ends the checkpoint in progress without completing it. Its held
// chunks precede any newer barrier on their input, so they are released to
// be processed before that checkpoint's snapshot.
func (t *Task) abort(actions []TaskAction) []TaskAction {
	if !t.active {
		return actions
	}
	t.active = false
	if t.snapshotted {
		return actions // acknowledged already: nothing to give up here
	}
	return t.release(append(actions, Abort{ID: t.id}))
}
