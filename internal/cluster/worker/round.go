package worker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/assign"
	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
)

// round runs one cluster checkpoint under assignment a (design §5.3):
// claim N (fenced), broadcast the trigger, collect one ack from every
// worker with tasks, write the global manifest and then the fenced
// completion record, the commit point, and broadcast the outcome.
//
// A handover round (handover) asks the workers for an unaligned
// checkpoint: barriers overtake what the tasks have queued.
func (c *coordinator) round(ctx context.Context, a assign.Assignment, handover bool) error {
	started := time.Now()
	p, err := ctlrec.Claim(ctx, c.w.bucket, c.l, a.Epoch, false)
	if err != nil {
		return err
	}
	n := p.Checkpoint
	err = c.collectAndComplete(ctx, a, p, started, handover)
	if err != nil {
		c.announce(outcome{Checkpoint: n, Error: err.Error()})
		return fmt.Errorf("checkpoint %d: %w", n, err)
	}
	c.announce(outcome{Checkpoint: n, Completed: true})
	c.lastCompleted = n
	return nil
}

func (c *coordinator) collectAndComplete(ctx context.Context, a assign.Assignment, p ctlrec.Pending, started time.Time, handover bool) error {
	c.drainAcks()
	t := trigger{Checkpoint: p.Checkpoint, Generation: p.Generation, Assignment: p.Assignment, Handover: handover}
	if err := c.w.conn.NC.Publish(c.w.subj.trigger, mustJSON(t)); err != nil {
		return fmt.Errorf("broadcast the trigger: %w", err)
	}
	acks, err := c.collect(ctx, t, workersOf(a))
	if err != nil {
		return err
	}
	template := checkpoint.Manifest{ID: p.Checkpoint, Created: started.UTC(), Config: c.w.cfg.Text}
	m, err := global.Assemble(p.Checkpoint, p.Generation, p.Assignment, template, acks)
	if err != nil {
		return err
	}
	if err := coversEveryOperator(m, a); err != nil {
		return err
	}
	object, sum, err := global.PutManifest(ctx, c.w.obs, m)
	if err != nil {
		return err
	}
	done := ctlrec.Completed{Checkpoint: p.Checkpoint, Generation: p.Generation, Assignment: p.Assignment, Manifest: object, SHA256: sum}
	if err := ctlrec.Complete(ctx, c.l, p, done); err != nil {
		return err
	}
	var bytes, fresh int64
	for _, tp := range m.Tasks {
		bytes, fresh = bytes+tp.Bytes, fresh+tp.BytesNew
	}
	c.w.log.Info("cluster checkpoint completed", "checkpoint", p.Checkpoint, "generation", p.Generation, "assignment", p.Assignment,
		"workers", len(acks), "duration", time.Since(started), "bytes", bytes, "bytes_new", fresh)
	return nil
}

// collect gathers the acks of the workers until each has acked t, or the
// checkpoint timeout.
func (c *coordinator) collect(ctx context.Context, t trigger, workers []string) ([]global.Ack, error) {
	timer := time.NewTimer(c.w.timeout)
	defer timer.Stop()
	// A worker found dead meanwhile will not ack: give up at once, so the
	// next assignment can move its tasks.
	alive := time.NewTicker(250 * time.Millisecond)
	defer alive.Stop()
	got := map[string]global.Ack{}
	for len(got) < len(workers) {
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-timer.C:
			return nil, fmt.Errorf("no ack within %s from workers %v", c.w.timeout, missingWorkers(workers, got))
		case <-alive.C:
			if dead := deadWorkers(missingWorkers(workers, got), c.w.view.View().Alive); len(dead) > 0 {
				return nil, fmt.Errorf("workers %v stopped sending heartbeats before they acked", dead)
			}
		case m := <-c.declines:
			if err := declined(m, t, workers); err != nil {
				return nil, err
			}
		case m := <-c.acks:
			a, err := global.DecodeAck(m.Data)
			switch {
			case err != nil:
				c.refuse(m, err.Error())
			case a.Checkpoint != t.Checkpoint || a.Generation != t.Generation || a.Assignment != t.Assignment:
				c.refuse(m, fmt.Sprintf("ack of checkpoint %d (generation %d, assignment %d); in progress: %d (generation %d, assignment %d)",
					a.Checkpoint, a.Generation, a.Assignment, t.Checkpoint, t.Generation, t.Assignment))
			case !slices.Contains(workers, a.Worker):
				c.refuse(m, fmt.Sprintf("worker %q has no task in assignment %d", a.Worker, t.Assignment))
			default:
				got[a.Worker] = a
				_ = m.Respond(mustJSON(ackReply{}))
			}
		}
	}
	acks := make([]global.Ack, 0, len(got))
	for _, w := range workers {
		acks = append(acks, got[w])
	}
	return acks, nil
}

// declined is the error of a decline of t by one of its workers; nil for
// a decline of another checkpoint, or an unreadable one.
func declined(m *nats.Msg, t trigger, workers []string) error {
	d, err := decode[decline](m.Data, "decline")
	if err != nil || d.Checkpoint != t.Checkpoint || d.Generation != t.Generation || d.Assignment != t.Assignment || !slices.Contains(workers, d.Worker) {
		return nil
	}
	return fmt.Errorf("worker %s cannot take part: %s", d.Worker, d.Reason)
}

func (c *coordinator) drainAcks() {
	for {
		select {
		case m := <-c.acks:
			c.refuse(m, "stale ack: a newer checkpoint is in progress")
		default:
			return
		}
	}
}

func (c *coordinator) announce(o outcome) {
	if err := c.w.conn.NC.Publish(c.w.subj.outcome, mustJSON(o)); err != nil {
		c.w.log.Warn("broadcasting the checkpoint outcome failed; workers read it from the control bucket", "checkpoint", o.Checkpoint, "error", err)
	}
}

// workersOf lists the workers with at least one task in a, sorted.
func workersOf(a assign.Assignment) []string {
	var ws []string
	for _, o := range a.Operators {
		for _, t := range o.Tasks {
			if !slices.Contains(ws, t.Worker) {
				ws = append(ws, t.Worker)
			}
		}
	}
	slices.Sort(ws)
	return ws
}

func missingWorkers(workers []string, got map[string]global.Ack) []string {
	var out []string
	for _, w := range workers {
		if _, ok := got[w]; !ok {
			out = append(out, w)
		}
	}
	return out
}

func deadWorkers(workers, alive []string) []string {
	var out []string
	for _, w := range workers {
		if !slices.Contains(alive, w) {
			out = append(out, w)
		}
	}
	return out
}

// errNotTriggered: the engine persisted a checkpoint no trigger asked for.
var errNotTriggered = errors.New("checkpoint not triggered by the cluster coordinator")

// coversEveryOperator refuses a checkpoint that lacks an operator of the
// assignment: the workers acked with their other tasks while every task of
// it failed to start (a restore that fails), and a checkpoint without it
// would be the one its tasks restore from next, which they cannot.
// Assemble checks that each operator the acks name covers its key groups.
func coversEveryOperator(m global.Manifest, a assign.Assignment) error {
	for _, op := range a.Operators {
		if !slices.ContainsFunc(m.Checkpoint.Operators, func(e checkpoint.OperatorEntry) bool { return e.Name == op.Name }) {
			return fmt.Errorf("%w: operator %q has no task in checkpoint %d: none of its tasks took part (did they start?)", global.ErrNotCovered, op.Name, m.Checkpoint.ID)
		}
	}
	return nil
}
