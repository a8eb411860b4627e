package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/wasmstream/wasmstream/internal/exchange"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/natsio"
)

// exchangeInput is what the source of an exchange edge adds to a source: the edge, and when to
// inject the barriers the coordinator requests.
type exchangeInput struct {
	edge  *exchangeEdge
	align *markerAlignment
}

// newExchangeInput reads edge e for a run of generation; follow: the run is a cluster part,
// whose generation is its newest coordinator's (markerAlignment.follow).
func newExchangeInput(e *exchangeEdge, generation uint64, follow bool) *exchangeInput {
	return &exchangeInput{edge: e, align: newMarkerAlignment(generation, e.consumer.cfg.MaxParallelism, follow)}
}

// maxFilterSubjects bounds the filter subjects of one exchange reader: a part owning more key
// groups than that reads the whole stream and keeps its own (filter-on-read), rather than make
// the server hold a consumer with thousands of filters.
const maxFilterSubjects = 256

// exchangeFilters are the subjects of edge e that a cluster part reads: those of the key groups
// of its tasks of the consumer (FORMAT.md §2, Edge.FilterSubjects), so that each worker reads
// its share of the stream rather than all of it. Nil: the whole stream (outside a cluster part,
// when the part owns every key group, or more than maxFilterSubjects of them).
func (p *Pipeline) exchangeFilters(e *exchangeEdge) []string {
	oc := e.consumer.cfg
	owned := p.ownedTasks(oc)
	if p.opts.Cluster == nil || len(owned) == 0 || len(owned) == oc.Parallelism {
		return nil
	}
	var out []string
	for _, i := range owned {
		r := state.RangeForTask(i, oc.Parallelism, oc.MaxParallelism)
		subjects, err := e.edge.FilterSubjects(int(r.Start), int(r.End), oc.MaxParallelism)
		if err != nil || len(out)+len(subjects) > maxFilterSubjects {
			return nil
		}
		out = append(out, subjects...)
	}
	return out
}

// runExchange is run for the source of an exchange edge. An aligned barrier request is not
// injected at once: the barrier goes in at the first marker of its checkpoint that the stream
// holds (markerAlignment), in band, after the records before it. An unaligned one (the
// pipeline's checkpoint.mode, or a checkpoint the coordinator made unaligned) goes in at once,
// where the source is: the records after it, however many the stream still holds, are read
// again on restore, so the checkpoint does not wait for the source to read its backlog up to
// the producers' markers.
func (s *source) runExchange(ctx context.Context) error {
	for ctx.Err() == nil {
		select {
		case req := <-s.barriers:
			if err := s.onExchangeRequest(req); err != nil || req.Final && s.xin.align.pending == nil {
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
		s.countRead(msgs)
		s.routing.Store(true)
		done, err := s.routeExchange(ctx, msgs)
		s.routing.Store(false)
		if err != nil || done {
			return err
		}
	}
	return nil
}

// onExchangeRequest injects the barrier of req now when it is unaligned, or when a marker of it
// was read already; otherwise markerAlignment keeps it for the marker.
func (s *source) onExchangeRequest(req barrierRequest) error {
	if req.Overtaking {
		s.xin.align.cutNow()
		return s.injectBarrier(req)
	}
	if now, ok := s.xin.align.request(req, s.p.generation.Load()); ok {
		_, err := s.injectExchange(now)
		return err
	}
	return nil
}

// countRead counts the records of msgs as read. Markers are not input: a pipeline whose
// sources deliver nothing but the markers of its periodic checkpoints is idle.
func (s *source) countRead(msgs []natsio.Message) {
	records := 0
	for i := range msgs {
		if msgs[i].Header.Get(exchange.HeaderMarker) == "" {
			records++
			s.lastRecordTime.Store(msgs[i].Time.UnixNano())
		}
	}
	if records > 0 {
		s.lastData.Store(time.Now().UnixNano())
		s.read.Add(uint64(records))
	}
}

// routeExchange routes the records of msgs and acts on its markers, in stream order. done: the
// final barrier went in, and the source stops.
func (s *source) routeExchange(ctx context.Context, msgs []natsio.Message) (done bool, err error) {
	start := 0
	for i := range msgs {
		m := &msgs[i]
		if m.Header.Get(exchange.HeaderMarker) == "" {
			if err := s.exchangeEventTime(m); err != nil {
				return false, err
			}
			continue
		}
		if err := s.routeUpTo(ctx, msgs[start:i], m.Sequence); err != nil {
			return false, err
		}
		start = i + 1
		req, ok, err := s.onMarker(m)
		switch {
		case err != nil:
			return false, err
		case !ok:
			continue
		}
		if done, err := s.injectExchange(req); err != nil || done {
			return done, err
		}
	}
	return false, s.routeUpTo(ctx, msgs[start:], msgs[len(msgs)-1].Sequence)
}

// routeUpTo routes recs (none: only the position moves) and sets the position to upTo.
func (s *source) routeUpTo(ctx context.Context, recs []natsio.Message, upTo uint64) error {
	if len(recs) > 0 {
		if err := s.route(ctx, recs); err != nil {
			return err
		}
	}
	s.position.Store(upTo)
	return nil
}

// onMarker reads a marker and returns the barrier to inject after it, if any.
func (s *source) onMarker(m *natsio.Message) (barrierRequest, bool, error) {
	e := s.xin.edge
	mk, err := exchange.DecodeMarker(m.Data)
	if err != nil {
		return barrierRequest{}, false, fmt.Errorf("exchange %s: stream %s sequence %d: %w; the engine writes markers, so the stream was written to by something else, "+
			"or by a newer wasmstream (upgrade this one)", e.edge, m.Stream, m.Sequence, err)
	}
	kg, ok := e.edge.KeyGroupOf(m.Subject, e.consumer.cfg.MaxParallelism)
	if !ok {
		return barrierRequest{}, false, fmt.Errorf("exchange %s: stream %s sequence %d: marker on subject %s, which is no key group of %d", e.edge, m.Stream, m.Sequence, m.Subject, e.consumer.cfg.MaxParallelism)
	}
	req, inject := s.xin.align.marker(mk, kg)
	return req, inject, nil
}

// injectExchange injects req at the current position, in band: an exchange source's barrier
// never overtakes the records before it. done: it was the final one.
func (s *source) injectExchange(req barrierRequest) (done bool, err error) {
	req.Overtaking = false
	return req.Final, s.injectBarrier(req)
}

// exchangeEventTime makes the producer's event time (Wasmstream-Event-Time) the record's, in
// place of the time the exchange stream stored it (FORMAT.md §3), and a routed record's
// subject (Wasmstream-Exchange-Subject, §2.1) its subject, in place of the exchange's.
func (s *source) exchangeEventTime(m *natsio.Message) error {
	t, err := exchange.DecodeEventTime(m.Header.Get(exchange.HeaderEventTime))
	if err != nil {
		return fmt.Errorf("exchange %s: stream %s sequence %d: %w", s.xin.edge.edge, m.Stream, m.Sequence, err)
	}
	m.Time = t
	if subject := m.Header.Get(exchange.HeaderSubject); subject != "" {
		m.Subject = subject
		m.Header.Del(exchange.HeaderSubject)
	}
	return nil
}
