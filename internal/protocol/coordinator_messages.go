package protocol

import (
	"fmt"
	"time"
)

// Event is something the coordinator is told. Events are plain values so
// that they can arrive over channels in one process or as messages over
// NATS from other processes. The concrete types are Tick, Trigger, Stop,
// SourceReported, TaskAcked, Persisted and Published.
type Event interface {
	fmt.Stringer
	isEvent()
}

// Tick says time has passed (the driver's timer fired at NextDeadline).
type Tick struct{}

// Trigger asks for a checkpoint now; while one is in progress it is the
// answer.
type Trigger struct {
	// ID, when not 0, numbers the checkpoint: a cluster coordinator
	// chooses the ids of its workers' checkpoints. Ids only grow, so a
	// trigger whose ID is below the next id is stale and ignored.
	ID uint64
	// Overtaking makes this checkpoint unaligned whatever the mode: its
	// barriers overtake queued records and each task snapshots at the
	// first one. A cluster's handover checkpoint asks for it, so that a
	// backlog in the tasks' queues does not delay the move of tasks.
	Overtaking bool
}

// Stop asks for the final checkpoint: the one in progress finishes, then
// a final barrier makes the sources stop after their last routed record.
type Stop struct{}

// SourceReported: a source injected barrier ID after routing every record
// up to Position.
type SourceReported struct {
	ID       uint64
	Source   int
	Position uint64
}

// TaskAcked: a task snapshotted its part of checkpoint ID.
type TaskAcked struct {
	ID     uint64
	Task   int
	Report TaskReport
}

// TaskReport is one task's part of a checkpoint.
type TaskReport struct {
	// Positions[i]: the snapshot holds input i up to this sequence.
	Positions []uint64
	Unaligned bool
	Alignment time.Duration
	// Pause is the longest single stop of processing the snapshot caused:
	// the cut, one step of its incremental flush, or a forced finish of
	// the flush (the snapshot's writes are encoded between batches and
	// committed in the background).
	Pause time.Duration
	// Err is why the snapshot could not be written; the checkpoint fails.
	Err error
}

// Persisted: the driver wrote checkpoint ID (Pebble checkpoint and
// manifest), or failed to (Err). A written checkpoint is complete.
type Persisted struct {
	ID  uint64
	Err error
	// Outage: Err happened only because NATS was unreachable (the outputs
	// of the cut were not acknowledged), not because of the disk.
	Outage bool
	// GivenUp: Err happened because the cluster coordinator gave the
	// checkpoint up (a cluster part's persist waits for its outcome).
	GivenUp bool
}

// Published: the transactional outputs staged in checkpoint ID are
// visible downstream (Err nil), or could not be made so.
type Published struct {
	ID  uint64
	Err error
	// Outage: Err happened only because NATS was unreachable; the outputs
	// stay staged and Publish is asked again.
	Outage bool
}

func (Tick) isEvent()           {}
func (Trigger) isEvent()        {}
func (Stop) isEvent()           {}
func (SourceReported) isEvent() {}
func (TaskAcked) isEvent()      {}
func (Persisted) isEvent()      {}
func (Published) isEvent()      {}

// String implements fmt.Stringer.
func (Tick) String() string { return "tick" }

// String implements fmt.Stringer.
func (t Trigger) String() string {
	if t.ID != 0 {
		return fmt.Sprintf("trigger %d", t.ID)
	}
	return "trigger"
}

// String implements fmt.Stringer.
func (Stop) String() string { return "stop" }

// String implements fmt.Stringer.
func (e SourceReported) String() string {
	return fmt.Sprintf("source-reported %d source=%d position=%d", e.ID, e.Source, e.Position)
}

// String implements fmt.Stringer.
func (e TaskAcked) String() string {
	s := fmt.Sprintf("task-acked %d task=%d positions=%s", e.ID, e.Task, uints(e.Report.Positions))
	if e.Report.Err != nil {
		s += " err=" + e.Report.Err.Error()
	}
	return s
}

// String implements fmt.Stringer.
func (e Persisted) String() string { return "persisted " + idErr(e.ID, e.Err, e.Outage) }

// String implements fmt.Stringer.
func (e Published) String() string { return "published " + idErr(e.ID, e.Err, e.Outage) }

func idErr(id uint64, err error, outage bool) string {
	switch {
	case err != nil && outage:
		return fmt.Sprintf("%d outage err=%v", id, err)
	case err != nil:
		return fmt.Sprintf("%d err=%v", id, err)
	}
	return fmt.Sprint(id)
}

// Action is one step the coordinator's driver performs, in the order
// returned. The concrete types are InjectBarriers, Cancel, Persist,
// Publish, PublishDeferred, AckSources, Announce, MarkCleanStop, Retain,
// CheckpointFailed, Fail and Stopped.
type Action interface {
	fmt.Stringer
	isAction()
}

// InjectBarriers asks every source to inject barrier ID after the last
// record it routed. Overtaking barriers go ahead of queued records
// (unaligned mode); a final barrier never overtakes, and the sources stop
// reading after it.
type InjectBarriers struct {
	ID         uint64
	Final      bool
	Overtaking bool
}

// Cancel tells the tasks checkpoint ID was given up: an aligning task
// releases what it holds instead of waiting for the next barrier.
type Cancel struct{ ID uint64 }

// Persist asks the driver to make checkpoint ID durable: outputs of the
// records in the cut acknowledged, then the state checkpoint and its
// manifest written atomically. It answers with Persisted.
type Persist struct {
	ID      uint64
	Final   bool
	Started time.Time
	// Sources[i] is source i's barrier position.
	Sources []uint64
	// Tasks[j] is task j's report.
	Tasks []TaskReport
}

// Publish asks the driver to make the transactional outputs staged in
// checkpoints up to ID visible (publish after complete). It answers with
// Published.
type Publish struct{ ID uint64 }

// PublishDeferred says the outputs of complete checkpoint ID could not be
// published because NATS is unreachable (Err); Publish is asked again at
// RetryAt, within the outage budget.
type PublishDeferred struct {
	ID      uint64
	Err     error
	RetryAt time.Time
}

// AckSources asks the driver to acknowledge, on sources whose streams
// remove acknowledged messages, everything before checkpoint ID's resume
// points.
type AckSources struct{ ID uint64 }

// Announce says checkpoint ID is complete: log it, answer who triggered it.
type Announce struct {
	ID       uint64
	Duration time.Duration
}

// MarkCleanStop records that ID is the final checkpoint of a graceful stop.
type MarkCleanStop struct{ ID uint64 }

// Retain asks the driver to delete completed checkpoints past retention.
type Retain struct{ ID uint64 }

// CheckpointFailed says checkpoint ID failed; the next one retries.
// InARow counts the failures since the last completed checkpoint that were
// not outages; Outage says this one was (NATS unreachable).
type CheckpointFailed struct {
	ID     uint64
	Err    error
	InARow int
	Outage bool
	// GivenUp: the cluster coordinator gave the checkpoint up (a newer
	// numbered trigger superseded it, or Persisted.GivenUp); not counted
	// in InARow.
	GivenUp bool
}

// Fail says the pipeline must stop with Err (its last completed checkpoint
// stays the restore point).
type Fail struct{ Err error }

// Stopped says the final checkpoint ID is complete: the run may end.
type Stopped struct{ ID uint64 }

func (InjectBarriers) isAction()   {}
func (Cancel) isAction()           {}
func (Persist) isAction()          {}
func (Publish) isAction()          {}
func (PublishDeferred) isAction()  {}
func (AckSources) isAction()       {}
func (Announce) isAction()         {}
func (MarkCleanStop) isAction()    {}
func (Retain) isAction()           {}
func (CheckpointFailed) isAction() {}
func (Fail) isAction()             {}
func (Stopped) isAction()          {}

// String implements fmt.Stringer.
func (a InjectBarriers) String() string {
	s := fmt.Sprintf("inject-barriers %d", a.ID)
	if a.Final {
		s += " final"
	}
	if a.Overtaking {
		s += " overtaking"
	}
	return s
}

// String implements fmt.Stringer.
func (a Cancel) String() string { return fmt.Sprintf("cancel %d", a.ID) }

// String implements fmt.Stringer.
func (a Persist) String() string {
	s := fmt.Sprintf("persist %d sources=%s", a.ID, uints(a.Sources))
	for j, r := range a.Tasks {
		s += fmt.Sprintf(" task%d=%s", j, uints(r.Positions))
		if r.Unaligned {
			s += "u"
		}
	}
	if a.Final {
		s += " final"
	}
	return s
}

// String implements fmt.Stringer.
func (a Publish) String() string { return fmt.Sprintf("publish %d", a.ID) }

// String implements fmt.Stringer.
func (a PublishDeferred) String() string {
	return fmt.Sprintf("publish-deferred %d: %v", a.ID, a.Err)
}

// String implements fmt.Stringer.
func (a AckSources) String() string { return fmt.Sprintf("ack-sources %d", a.ID) }

// String implements fmt.Stringer.
func (a Announce) String() string { return fmt.Sprintf("announce %d duration=%s", a.ID, a.Duration) }

// String implements fmt.Stringer.
func (a MarkCleanStop) String() string { return fmt.Sprintf("mark-clean-stop %d", a.ID) }

// String implements fmt.Stringer.
func (a Retain) String() string { return fmt.Sprintf("retain %d", a.ID) }

// String implements fmt.Stringer.
func (a CheckpointFailed) String() string {
	if a.Outage {
		return fmt.Sprintf("checkpoint-failed %d outage in_a_row=%d: %v", a.ID, a.InARow, a.Err)
	}
	if a.GivenUp {
		return fmt.Sprintf("checkpoint-failed %d given-up in_a_row=%d: %v", a.ID, a.InARow, a.Err)
	}
	return fmt.Sprintf("checkpoint-failed %d in_a_row=%d: %v", a.ID, a.InARow, a.Err)
}

// String implements fmt.Stringer.
func (a Fail) String() string { return fmt.Sprintf("fail: %v", a.Err) }

// String implements fmt.Stringer.
func (a Stopped) String() string { return fmt.Sprintf("stopped %d", a.ID) }
