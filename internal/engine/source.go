package engine

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/protocol"
	"github.com/wasmstream/wasmstream/natsio"
)

// source reads one JetStream source and routes its records to the tasks of
// every operator that consumes it.
type source struct {
	p         *Pipeline
	index     int
	cfg       *config.Source
	eventID   *natsio.KeyExtractor // the event_id block; nil: none
	src       streamReader
	acker     *natsio.AckingSource // src when the stream needs acknowledgements; nil otherwise
	consumers []consumer
	xin       *exchangeInput // the source of an exchange edge; nil for a declared source
	// routes are the route edges of a routed source, which its router publishes into
	// (exchange_route.go); it has no consumers then.
	routes []*exchangeEdge
	// position is the last stream sequence routed to the tasks.
	position atomic.Uint64
	read     atomic.Uint64
	lastData atomic.Int64 // unix nanos of the last fetch that returned data
	routing  atomic.Bool  // records fetched are being handed to the tasks
	// barriers carries the coordinator's barrier requests.
	barriers chan barrierRequest
	// replayUntil is the stream's last sequence when the run restored a
	// checkpoint; records up to it are counted as replayed.
	replayUntil uint64
	replayed    atomic.Uint64

	// lastRecordTime is the JetStream timestamp (unix nanos) of the newest record read (metrics).
	lastRecordTime atomic.Int64
}

type consumer struct {
	op    *operator
	input uint32 // index of this source among the operator's inputs
}

// fetchWait bounds how long a fetch waits for data before the source checks
// for a stop or a barrier request: it is the longest a checkpoint waits for
// an idle source's barrier. It is not a latency floor (a fetch returns as
// soon as data arrives), and an idle wait is a local channel receive, so a
// short one costs nothing measurable.
const fetchWait = 20 * time.Millisecond

func (s *source) run(ctx context.Context) error {
	if s.xin != nil {
		return s.runExchange(ctx)
	}
	for ctx.Err() == nil {
		select {
		case req := <-s.barriers:
			if err := s.injectBarrier(req); err != nil || req.Final {
				return err
			}
		default:
		}
		msgs, stop, err := s.fetch(ctx)
		if stop || err != nil {
			return err
		}
		if len(msgs) == 0 {
			continue
		}
		s.lastData.Store(time.Now().UnixNano())
		s.read.Add(uint64(len(msgs)))
		s.lastRecordTime.Store(msgs[len(msgs)-1].Time.UnixNano())
		s.routing.Store(true)
		if len(s.routes) > 0 {
			err = s.routeOut(ctx, msgs)
		} else {
			err = s.route(ctx, msgs)
		}
		s.routing.Store(false)
		if err != nil {
			return err
		}
	}
	return nil
}

// fetch reads the next messages (none after fetchWait without data). stop:
// the run ended (its context, or a cancelled fetch), and the source ends
// without an error.
func (s *source) fetch(ctx context.Context) (msgs []natsio.Message, stop bool, err error) {
	msgs, err = s.src.Fetch(ctx, s.p.opts.FetchBatch, fetchWait)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, context.Canceled) {
			return nil, true, nil
		}
		return nil, false, s.fetchError(err)
	}
	return msgs, false, nil
}

// fetchError says what stopped the source and what the user can do. The
// checkpoints keep positions of the stream as it was: a source never
// delivers a record of a recreated stream, nor one past a gap.
func (s *source) fetchError(err error) error {
	hint := ""
	switch {
	case errors.Is(err, natsio.ErrStreamRecreated), errors.Is(err, natsio.ErrStreamNotFound):
		hint = "; the checkpoints hold positions of the old stream, which a restart refuses: " +
			"run with --empty-state to start over on the new stream"
	case errors.Is(err, natsio.ErrSequenceGap):
		hint = "; a restart resumes at the last checkpoint and refuses the gap again: restore the messages, or run with --accept-gaps to resume without them"
	}
	return fmt.Errorf("source %q (stream %s): %w%s", s.cfg.Name, s.cfg.Stream, err, hint)
}

// injectBarrier sends the checkpoint's barrier to every task that consumes
// the source, after the last chunk routed to it, and reports the position.
// Overtaking barriers (unaligned mode; never the final one, so that a
// graceful stop drains every routed record first) take the tasks'
// priority queue, ahead of the records already queued.
func (s *source) injectBarrier(req barrierRequest) error {
	pos := s.position.Load()
	if len(s.routes) > 0 {
		// Not the run's context: a final barrier is injected after it ended.
		if err := s.publishRouteMarkers(s.p.gateCtx, req.ID); err != nil {
			return err
		}
	}
	for _, c := range s.consumers {
		for _, t := range c.op.tasks {
			b := &protocol.Barrier{ID: req.ID, Input: int(c.input), Position: pos, Overtaking: req.Overtaking}
			queue := t.in
			if req.Overtaking {
				queue = t.prio
			}
			select {
			case queue <- taskItem{barrier: b}:
			case <-s.p.failed:
				return errPipelineFailed
			case <-s.p.abandoned:
				return errPipelineFailed
			}
		}
	}
	s.p.report(protocol.SourceReported{ID: req.ID, Source: s.index, Position: pos})
	return nil
}

// route hands msgs to the tasks. Only this goroutine routes the source's
// records and injects its barriers, so a barrier follows exactly the
// records routed before it.
func (s *source) route(ctx context.Context, msgs []natsio.Message) error {
	upTo := msgs[len(msgs)-1].Sequence
	if s.replayUntil > 0 {
		s.countReplayed(msgs)
	}
	for _, c := range s.consumers {
		chunks := make([][]inputRecord, len(c.op.tasks))
		for i := range msgs {
			m := &msgs[i]
			key, err := c.op.recordKey(c.input, m)
			if err != nil {
				if err := s.p.keyFailure(ctx, c.op, s, m, err); err != nil {
					return err
				}
				continue
			}
			t := c.op.taskFor(key)
			if t < 0 {
				continue // another worker's key group (filter-on-read)
			}
			chunks[t] = append(chunks[t], inputRecord{source: s.index, input: c.input, msg: m, key: key})
		}
		for t, chunk := range chunks {
			if len(chunk) == 0 {
				continue
			}
			// Not ctx: once part of a chunk is routed the rest must follow,
			// or a barrier would follow a half-routed fetch.
			select {
			case c.op.tasks[t].in <- taskItem{records: chunk, input: int(c.input), upTo: upTo}:
			case <-s.p.failed:
				return errPipelineFailed
			case <-s.p.abandoned:
				return errPipelineFailed
			}
		}
	}
	s.position.Store(upTo)
	return nil
}

func (s *source) countReplayed(msgs []natsio.Message) {
	n := 0
	for i := range msgs {
		if msgs[i].Sequence <= s.replayUntil {
			n++
		}
	}
	s.replayed.Add(uint64(n))
	if msgs[len(msgs)-1].Sequence >= s.replayUntil {
		s.replayUntil = 0
	}
}
