package worker

import (
	"encoding/json"
	"fmt"
)

// Core-NATS subjects of a cluster pipeline's checkpoints (design §5.0):
// the coordinator broadcasts triggers and outcomes, workers send acks as
// requests. They carry no decision: the fenced records in the control
// bucket do, and a worker that misses a broadcast reads them.
type subjects struct{ trigger, ack, decline, outcome, forget string }

func subjectsOf(pipeline string) subjects {
	p := "wasmstream." + pipeline + ".ctl."
	return subjects{trigger: p + "trigger", ack: p + "ack", decline: p + "decline", outcome: p + "outcome", forget: p + "forget"}
}

// trigger asks the workers of assignment epoch Assignment for checkpoint
// Checkpoint, claimed by coordinator generation Generation.
type trigger struct {
	Checkpoint uint64 `json:"checkpoint"`
	Generation uint64 `json:"generation"`
	Assignment uint64 `json:"assignment"`
	// Handover: the checkpoint a planned change moves tasks from, taken
	// unaligned so that the tasks' queued records do not delay it.
	Handover bool `json:"handover,omitempty"`
}

// decline tells the coordinator that a worker with tasks in the trigger's
// assignment cannot ack it (its tasks are not running, or its snapshot
// failed), so that the round gives up at once instead of waiting for the
// checkpoint timeout while scale requests and reassignments wait too.
type decline struct {
	Checkpoint uint64 `json:"checkpoint"`
	Generation uint64 `json:"generation"`
	Assignment uint64 `json:"assignment"`
	Worker     string `json:"worker"`
	Reason     string `json:"reason"`
}

// outcome announces that a checkpoint completed or was given up.
type outcome struct {
	Checkpoint uint64 `json:"checkpoint"`
	Completed  bool   `json:"completed"`
	Error      string `json:"error,omitempty"`
}

// ackReply answers a worker's ack: the coordinator took it, or why not.
type ackReply struct {
	Error string `json:"error,omitempty"`
}

func decode[T any](data []byte, what string) (T, error) {
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return v, fmt.Errorf("unreadable %s %q: %w", what, truncate(data), err)
	}
	return v, nil
}

func truncate(b []byte) string {
	if len(b) > 120 {
		return string(b[:120]) + "…"
	}
	return string(b)
}

// decline tells the coordinator that this worker cannot ack t, and why.
// It is a broadcast, not a request: a coordinator that misses it waits for
// the checkpoint timeout, as before declines existed.
func (w *worker) decline(t trigger, reason string) {
	w.log.Warn("declining a cluster checkpoint", "checkpoint", t.Checkpoint, "assignment", t.Assignment, "reason", reason)
	d := decline{Checkpoint: t.Checkpoint, Generation: t.Generation, Assignment: t.Assignment, Worker: w.id, Reason: reason}
	if err := w.conn.NC.Publish(w.subj.decline, mustJSON(d)); err != nil {
		w.log.Warn("sending the decline failed; the coordinator waits for the checkpoint timeout", "checkpoint", t.Checkpoint, "error", err)
	}
}
