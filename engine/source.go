package engine

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/wasmstream/wasmstream/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
	"github.com/wasmstream/wasmstream/state"
)

// source reads one JetStream source and routes its records to the tasks of
// every operator that consumes it.
type source struct {
	p         *Pipeline
	index     int
	cfg       *config.Source
	src       *natsio.Source
	consumers []consumer
	// position is the last stream sequence routed to the tasks.
	position atomic.Uint64
	read     atomic.Uint64
	lastData atomic.Int64 // unix nanos of the last fetch that returned data
}

type consumer struct {
	op    *operator
	input uint32 // index of this source among the operator's inputs
}

// fetchWait bounds how long a fetch waits for data before the source checks
// for a stop; it is not a latency floor (a fetch returns as soon as data arrives).
const fetchWait = 200 * time.Millisecond

func (s *source) run(ctx context.Context) error {
	for ctx.Err() == nil {
		msgs, err := s.src.Fetch(ctx, s.p.opts.FetchBatch, fetchWait)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, context.Canceled) {
				return nil
			}
			return fmt.Errorf("source %q (stream %s): %w", s.cfg.Name, s.cfg.Stream, err)
		}
		if len(msgs) == 0 {
			continue
		}
		s.lastData.Store(time.Now().UnixNano())
		s.read.Add(uint64(len(msgs)))
		if err := s.route(ctx, msgs); err != nil {
			return err
		}
	}
	return nil
}

// route hands msgs to the tasks under the pipeline's gate so that a sync
// never sees a chunk half routed: the position moves with the records.
func (s *source) route(ctx context.Context, msgs []natsio.Message) error {
	s.p.gate.RLock()
	defer s.p.gate.RUnlock()
	for _, c := range s.consumers {
		chunks := make([][]inputRecord, len(c.op.tasks))
		for i := range msgs {
			m := &msgs[i]
			key, err := c.op.keyer.Extract(m.Subject, m.Header, m.Data)
			if err == nil && len(key) > state.MaxKeyLen {
				err = fmt.Errorf("key of %d bytes is over the %d-byte limit", len(key), state.MaxKeyLen)
			}
			if err != nil {
				if err := s.p.keyFailure(ctx, c.op, s, m, err); err != nil {
					return err
				}
				continue
			}
			t := c.op.taskFor(key)
			chunks[t] = append(chunks[t], inputRecord{source: s.index, input: c.input, msg: m, key: key})
		}
		for t, chunk := range chunks {
			if len(chunk) == 0 {
				continue
			}
			// Not ctx: once part of a chunk is routed the rest must follow,
			// or the final sync would commit state past the position.
			select {
			case c.op.tasks[t].in <- taskItem{records: chunk}:
			case <-s.p.failed:
				return errPipelineFailed
			}
		}
	}
	s.position.Store(msgs[len(msgs)-1].Sequence)
	return nil
}
