package worker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
)

// ackGather combines the shares of one cluster checkpoint that a
// worker's parts persist into the worker's one ack: the coordinator
// takes one ack per worker, and a worker runs several parts while ranges
// it gained (a failover, a scale-in) run beside the ones it kept (a part
// per set of tasks started together: follow.go). The part that completes
// the set sends the ack; every part's Persist returns the send's result.
type ackGather struct {
	w       *worker
	t       trigger
	started time.Time

	mu      sync.Mutex
	waiting map[*part]bool // parts whose share has not arrived
	ack     global.Ack
	done    chan struct{} // closed once the ack was sent or the round failed
	err     error         // the send's or the first failure's, once done
}

func newAckGather(w *worker, t trigger, parts []*part) *ackGather {
	g := &ackGather{w: w, t: t, started: time.Now(), waiting: map[*part]bool{}, done: make(chan struct{}),
		ack: global.Ack{Checkpoint: t.Checkpoint, Generation: t.Generation, Assignment: t.Assignment, Worker: w.id}}
	for _, pt := range parts {
		g.waiting[pt] = true
	}
	return g
}

// share is one part's contribution.
type share struct {
	sources   []checkpoint.SourcePosition
	operators []global.OperatorInfo
	tasks     []global.TaskPart
}

// contribute adds pt's share and waits until the worker's ack was sent
// (by whichever part completed the set) or the round failed.
func (g *ackGather) contribute(ctx context.Context, pt *part, s share) error {
	if last := g.add(pt, s); last {
		g.finish(g.w.sendAck(ctx, g.ack))
	}
	select {
	case <-g.done:
		return g.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// add records pt's share; true when it was the last one missing.
func (g *ackGather) add(pt *part, s share) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.done:
		return false // failed meanwhile: the worker sends no ack
	default:
	}
	if !g.waiting[pt] {
		return false // not expected
	}
	delete(g.waiting, pt)
	g.ack.Sources = lowestPositions(g.ack.Sources, s.sources)
	g.ack.Operators = unionInfos(g.ack.Operators, s.operators)
	g.ack.Tasks = append(g.ack.Tasks, s.tasks...)
	if len(g.waiting) > 0 {
		return false
	}
	g.ack.DurationNanos = int64(time.Since(g.started))
	return true
}

// fail ends the round for every part of the worker: one part cannot take
// part, so the worker's ack would not cover its tasks. It reports whether
// pt had not yet given its share: only then does the failure keep the
// worker from acking (after its share the round's fate is the ack's).
func (g *ackGather) fail(pt *part, err error) bool {
	g.mu.Lock()
	if !g.waiting[pt] {
		g.mu.Unlock()
		return false
	}
	delete(g.waiting, pt)
	g.mu.Unlock()
	g.finish(fmt.Errorf("%w: checkpoint %d: another part of this worker failed: %w", errPartFailed, g.t.Checkpoint, err))
	return true
}

// errPartFailed: one of the worker's parts could not take part in a
// cluster checkpoint, so none of them acks it.
var errPartFailed = errors.New("cluster checkpoint failed on this worker")

func (g *ackGather) finish(err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.done:
	default:
		g.err = err
		close(g.done)
	}
}

// lowestPositions merges positions by source name, keeping the lowest:
// the global manifest resumes a source there (each task's own inputs
// carry where it stands).
func lowestPositions(have, more []checkpoint.SourcePosition) []checkpoint.SourcePosition {
	for _, s := range more {
		i := indexOfSource(have, s.Name)
		switch {
		case i < 0:
			have = append(have, s)
		case s.LastSequence < have[i].LastSequence:
			have[i].LastSequence = s.LastSequence
		}
	}
	return have
}

func indexOfSource(ps []checkpoint.SourcePosition, name string) int {
	for i, p := range ps {
		if p.Name == name {
			return i
		}
	}
	return -1
}

// unionInfos adds the operators of more not in have (two parts running
// tasks of one operator report the same module and versions).
func unionInfos(have, more []global.OperatorInfo) []global.OperatorInfo {
	for _, info := range more {
		known := false
		for _, h := range have {
			known = known || h.Name == info.Name
		}
		if !known {
			have = append(have, info)
		}
	}
	return have
}
