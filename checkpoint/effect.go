package checkpoint

import (
	"fmt"
	"strings"
)

// Action tells the caller what to do with one record that just arrived.
type Action int

const (
	// Process means process the record now.
	Process Action = iota
	// Hold means buffer the record: it follows a barrier whose alignment is
	// not finished. A later Release effect says when to process it.
	Hold
	// ProcessAndLogInFlight means process the record now and also log it as
	// channel state of the checkpoint in progress (see Aligner.InProgress):
	// it precedes that checkpoint's barrier but is not in its snapshot.
	ProcessAndLogInFlight
)

// String returns the name used in test scripts.
func (a Action) String() string {
	switch a {
	case Process:
		return "process"
	case Hold:
		return "hold"
	case ProcessAndLogInFlight:
		return "process+log-inflight"
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// Effect is one step the caller must perform, in the order returned.
// The concrete types are Snapshot, Forward, Release, Complete, Abort and Ignored.
type Effect interface {
	fmt.Stringer
	isEffect()
}

// Snapshot asks the caller to snapshot the task's state for checkpoint ID,
// before processing any record the aligner returns afterwards.
type Snapshot struct{ ID uint64 }

// Forward asks the caller to emit barrier ID on every output.
type Forward struct{ ID uint64 }

// Release asks the caller to process its held records now, in this order.
// Inputs[k] is the input the k-th held record arrived on: a caller with one
// FIFO per input pops the head of that input's FIFO for each entry.
type Release struct{ Inputs []int }

// Complete says barrier ID arrived on every input: the task's part of
// checkpoint ID is done (snapshot taken, channel state, if any, fully logged)
// and it may acknowledge it to the coordinator.
type Complete struct{ ID uint64 }

// Abort says checkpoint ID will not finish on this task (superseded by a newer
// barrier, or cancelled): discard its partial snapshot and channel-state log.
type Abort struct{ ID uint64 }

// Ignored reports a barrier of a superseded or cancelled checkpoint. The
// caller drops it; it is an effect so that it can be counted and logged.
type Ignored struct {
	ID    uint64
	Input int
}

func (Snapshot) isEffect() {}
func (Forward) isEffect()  {}
func (Release) isEffect()  {}
func (Complete) isEffect() {}
func (Abort) isEffect()    {}
func (Ignored) isEffect()  {}

// String implements fmt.Stringer.
func (e Snapshot) String() string { return fmt.Sprintf("snapshot %d", e.ID) }

// String implements fmt.Stringer.
func (e Forward) String() string { return fmt.Sprintf("forward %d", e.ID) }

// String implements fmt.Stringer.
func (e Release) String() string {
	parts := make([]string, len(e.Inputs))
	for k, in := range e.Inputs {
		parts[k] = fmt.Sprint(in)
	}
	return "release [" + strings.Join(parts, " ") + "]"
}

// String implements fmt.Stringer.
func (e Complete) String() string { return fmt.Sprintf("complete %d", e.ID) }

// String implements fmt.Stringer.
func (e Abort) String() string { return fmt.Sprintf("abort %d", e.ID) }

// String implements fmt.Stringer.
func (e Ignored) String() string { return fmt.Sprintf("ignored %d input=%d", e.ID, e.Input) }
