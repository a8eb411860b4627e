package protocol

import (
	"fmt"
	"strings"
	"time"
)

// Disposition says what a task does with a chunk of records that arrived.
type Disposition int

const (
	// Process the chunk now.
	Process Disposition = iota
	// Hold the chunk: it follows a barrier whose alignment is not finished.
	// A later Release action says when to process it.
	Hold
)

// String returns the name used in scripts.
func (d Disposition) String() string {
	if d == Hold {
		return "hold"
	}
	return "process"
}

// Barrier is checkpoint ID's barrier arriving on one input of a task.
type Barrier struct {
	ID    uint64
	Input int
	// Position is the last stream sequence the source had routed to the
	// task when it injected the barrier.
	Position uint64
	// Overtaking: the barrier went ahead of records the source had routed
	// before it (unaligned mode), so it does not mark the end of the
	// records in the cut; the task's processed position does.
	Overtaking bool
}

// TaskAction is one step a task's driver performs, in the order returned.
// The concrete types are Snapshot, Ack, Forward, Release, Abort and Ignored.
type TaskAction interface {
	fmt.Stringer
	isTaskAction()
}

// Snapshot asks the driver to write the task's state (and its staged
// transactional outputs, the sink's pre-commit of epoch ID) as its part of
// checkpoint ID, before processing anything else.
type Snapshot struct {
	ID uint64
	// Positions[i]: the state holds every record of input i up to this
	// sequence, and none after it.
	Positions []uint64
	// Unaligned: some input's position is not its barrier's (an overtaking
	// barrier, or the alignment timed out): restore replays those inputs
	// from the lowest position of any task and skips per key group.
	Unaligned bool
	// Alignment is how long the task waited from its first barrier.
	Alignment time.Duration
}

// Ack asks the driver to acknowledge checkpoint ID to the coordinator with
// the outcome of the Snapshot it just performed.
type Ack struct{ ID uint64 }

// Forward asks the driver to emit barrier ID on every downstream output.
// A task of a single stage has none (TaskConfig.Downstream = 0): its
// outputs leave through sinks, whose epoch the Snapshot stages.
type Forward struct{ ID uint64 }

// Release asks the driver to process its held chunks now, in this order.
// Inputs[k] is the input of the k-th held chunk: a driver with one FIFO
// per input pops the head of that input's FIFO for each entry.
type Release struct{ Inputs []int }

// Abort says checkpoint ID ends on this task without completing
// (superseded by a newer barrier, or cancelled by the coordinator).
type Abort struct{ ID uint64 }

// Ignored reports a barrier of a superseded or cancelled checkpoint, which
// the driver drops; it is an action so that it can be logged.
type Ignored struct {
	ID    uint64
	Input int
}

func (Snapshot) isTaskAction() {}
func (Ack) isTaskAction()      {}
func (Forward) isTaskAction()  {}
func (Release) isTaskAction()  {}
func (Abort) isTaskAction()    {}
func (Ignored) isTaskAction()  {}

// String implements fmt.Stringer.
func (a Snapshot) String() string {
	kind := "aligned"
	if a.Unaligned {
		kind = "unaligned"
	}
	return fmt.Sprintf("snapshot %d positions=%s %s alignment=%s", a.ID, uints(a.Positions), kind, a.Alignment)
}

// String implements fmt.Stringer.
func (a Ack) String() string { return fmt.Sprintf("ack %d", a.ID) }

// String implements fmt.Stringer.
func (a Forward) String() string { return fmt.Sprintf("forward %d", a.ID) }

// String implements fmt.Stringer.
func (a Release) String() string { return "release " + ints(a.Inputs) }

// String implements fmt.Stringer.
func (a Abort) String() string { return fmt.Sprintf("abort %d", a.ID) }

// String implements fmt.Stringer.
func (a Ignored) String() string { return fmt.Sprintf("ignored %d input=%d", a.ID, a.Input) }

func uints(v []uint64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func ints(v []int) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(parts, " ") + "]"
}
