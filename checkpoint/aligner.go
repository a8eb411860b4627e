package checkpoint

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrInputOutOfRange marks a record or barrier on an input the task lacks.
var ErrInputOutOfRange = errors.New("checkpoint: input out of range")

// ErrBarrierOrder marks a barrier whose id does not exceed the previous
// barrier on the same input (a duplicate, a reordering or id 0). Channels are
// FIFO and sources number barriers 1, 2, ..., so this is an upstream bug; the
// aligner's state is left unchanged and the task should fail.
var ErrBarrierOrder = errors.New("checkpoint: barrier id not increasing on input")

// Aligner is the barrier-alignment state machine of one operator task. It is
// not safe for concurrent use: the task's single run loop drives it.
type Aligner struct {
	cfg Config

	// id is the newest checkpoint started or cancelled; barriers with a
	// smaller id are stale. 0 before any.
	id uint64
	// active: checkpoint id is in progress on this task.
	active bool
	// snapshotted: the snapshot of id is taken (unaligned mode, or aligned
	// after a timeout), so alignment no longer holds records.
	snapshotted bool
	// arrived[i]: barrier id arrived on input i. waiting counts the false ones.
	arrived []bool
	waiting int
	// lastBarrier[i] is the newest barrier id seen on input i, to detect
	// duplicates and reordering.
	lastBarrier []uint64
	// held lists the input of each held record, in arrival order.
	held []int
}

// NewAligner returns an idle aligner for a task configured by cfg.
func NewAligner(cfg Config) (*Aligner, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Aligner{
		cfg:         cfg,
		arrived:     make([]bool, cfg.Inputs),
		lastBarrier: make([]uint64, cfg.Inputs),
	}, nil
}

// InProgress returns the checkpoint in progress, if any. Records for which
// Record returns ProcessAndLogInFlight belong to its channel state.
func (a *Aligner) InProgress() (id uint64, ok bool) {
	return a.id, a.active
}

// Record tells the aligner a record arrived on input and returns what to do
// with it.
func (a *Aligner) Record(input int) (Action, error) {
	if err := a.checkInput(input); err != nil {
		return Process, err
	}
	switch {
	case !a.active || a.arrived[input] && a.snapshotted:
		return Process, nil
	case a.arrived[input]:
		a.held = append(a.held, input)
		return Hold, nil
	case a.snapshotted:
		return ProcessAndLogInFlight, nil
	}
	return Process, nil
}

// Barrier tells the aligner barrier id arrived on input and returns the
// effects to perform, in order.
func (a *Aligner) Barrier(input int, id uint64) ([]Effect, error) {
	if err := a.checkInput(input); err != nil {
		return nil, err
	}
	if id <= a.lastBarrier[input] {
		return nil, fmt.Errorf("%w: barrier %d on input %d after barrier %d; check the upstream task",
			ErrBarrierOrder, id, input, a.lastBarrier[input])
	}
	a.lastBarrier[input] = id
	var effects []Effect
	switch {
	case id < a.id || id == a.id && !a.active:
		return []Effect{Ignored{ID: id, Input: input}}, nil
	case id > a.id:
		effects = a.abort(effects)
		effects = a.start(effects, id)
	}
	return a.arrive(effects, input), nil
}

// Tick reports the time elapsed since the first barrier of the checkpoint in
// progress arrived. Once it exceeds the alignment timeout, an aligned
// checkpoint switches to unaligned: snapshot, forward, and release the held
// records (which follow the barrier, so they are not channel state).
func (a *Aligner) Tick(elapsedSinceFirstBarrier time.Duration) []Effect {
	if !a.active || a.snapshotted || a.cfg.AlignmentTimeout == 0 ||
		elapsedSinceFirstBarrier <= a.cfg.AlignmentTimeout {
		return nil
	}
	return a.release(a.snapshot(nil))
}

// Cancel tells the aligner the coordinator cancelled checkpoint id. If it is
// in progress it aborts (held records are released); if it has not started,
// its barriers will be ignored. Older ids change nothing.
func (a *Aligner) Cancel(id uint64) []Effect {
	switch {
	case id == a.id && a.active:
		return a.abort(nil)
	case id > a.id:
		effects := a.abort(nil)
		a.id = id
		return effects
	}
	return nil
}

// State describes the aligner for tests and debug logs.
func (a *Aligner) State() string {
	if !a.active {
		return fmt.Sprintf("idle last=%d", a.id)
	}
	phase := "aligning"
	if a.snapshotted {
		phase = "unaligned"
	}
	var waiting []string
	for i, ok := range a.arrived {
		if !ok {
			waiting = append(waiting, fmt.Sprint(i))
		}
	}
	return fmt.Sprintf("%s id=%d waiting=[%s] held=%d", phase, a.id, strings.Join(waiting, " "), len(a.held))
}

func (a *Aligner) checkInput(input int) error {
	if input < 0 || input >= a.cfg.Inputs {
		return fmt.Errorf("%w: input %d, the task has inputs 0..%d", ErrInputOutOfRange, input, a.cfg.Inputs-1)
	}
	return nil
}

// start begins checkpoint id with no barrier arrived yet.
func (a *Aligner) start(effects []Effect, id uint64) []Effect {
	a.id, a.active, a.snapshotted = id, true, false
	clear(a.arrived)
	a.waiting = a.cfg.Inputs
	return effects
}

// arrive records barrier a.id on input and emits what follows from it.
func (a *Aligner) arrive(effects []Effect, input int) []Effect {
	a.arrived[input] = true
	a.waiting--
	if a.cfg.Mode == Unaligned && !a.snapshotted {
		effects = a.snapshot(effects)
	}
	if a.waiting > 0 {
		return effects
	}
	if !a.snapshotted {
		effects = a.snapshot(effects)
	}
	effects = a.release(effects)
	a.active = false
	return append(effects, Complete{ID: a.id})
}

func (a *Aligner) snapshot(effects []Effect) []Effect {
	a.snapshotted = true
	return append(effects, Snapshot{ID: a.id}, Forward{ID: a.id})
}

// release hands the held records back to the caller in arrival order.
func (a *Aligner) release(effects []Effect) []Effect {
	if len(a.held) == 0 {
		return effects
	}
	effects = append(effects, Release{Inputs: a.held})
	a.held = nil
	return effects
}

// abort ends the checkpoint in progress, if any, without completing it. The
// held records precede any newer barrier, so they are released to be
// processed before that checkpoint's snapshot.
func (a *Aligner) abort(effects []Effect) []Effect {
	if !a.active {
		return effects
	}
	a.active = false
	return a.release(append(effects, Abort{ID: a.id}))
}
