package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/exchange"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/natsio"
)

// A routed source (config.Source.Route) is read by its router alone: the source's own
// goroutine, which publishes each record into one exchange stream per operator reading the
// source (a route edge, FORMAT.md §2.1), on the subject of that operator's key group for it,
// and at each barrier a marker on every key-group subject of each of those streams, as a
// producer task does at its snapshot. The operators read the streams like another operator's
// output. In a cluster only the worker running task 0 of the source's first reader runs the
// router, so the source is read once however many workers share the pipeline.

// wireRoutes adds the route edges of every routed source that operators read.
func (p *Pipeline) wireRoutes() error {
	for i := range p.cfg.Sources {
		sc := &p.cfg.Sources[i]
		if !sc.Route {
			continue
		}
		for _, c := range p.consumersOf(sc.Name) {
			e := &exchangeEdge{edge: exchange.RouteEdge(p.cfg.Name, sc.Name, c.op.cfg.Name), consumer: c.op, input: c.input, routed: sc}
			if err := e.edge.Validate(); err != nil {
				return config.Errorf(sc.Range, "source %q: route to operator %q: %w", sc.Name, c.op.cfg.Name, err)
			}
			e.source = config.Source{Name: routedSourceName(sc.Name, c.op.cfg.Name), Stream: e.edge.StreamName(), Subject: e.edge.StreamSubject(),
				EventID: sc.EventID, MaxDuplicateDelay: sc.MaxDuplicateDelay, Range: sc.Range}
			p.exchanges = append(p.exchanges, e)
		}
	}
	return nil
}

// routedSourceName names the source that reads the route edge of source to consumer: its
// positions in the checkpoints, metrics and logs go by it.
func routedSourceName(source, consumer string) string { return source + ">" + consumer }

// inputSourceName is the name of the source that feeds input i of op, under which checkpoints
// keep its positions: the input as the config writes it, but for an exchange edge the name of
// its reader (exchangeSourceName: a second reader of an output, routedSourceName: the reader of
// a routed source's route edge), whose positions are sequences of that edge's stream.
func (p *Pipeline) inputSourceName(op *operator, i int) string {
	for _, e := range p.exchanges {
		if e.consumer == op && int(e.input) == i {
			return e.source.Name
		}
	}
	return op.cfg.Inputs[i]
}

// routesOf are the route edges of the declared source sc, in the order of its readers.
func (p *Pipeline) routesOf(sc *config.Source) []*exchangeEdge {
	var out []*exchangeEdge
	for _, e := range p.exchanges {
		if e.routed == sc {
			out = append(out, e)
		}
	}
	return out
}

// runsRouter reports whether this process runs the router of a source with routes: outside a
// cluster always; in a cluster part, when it runs task 0 of the source's first reader.
func (p *Pipeline) runsRouter(routes []*exchangeEdge) bool {
	return len(routes) > 0 && (p.opts.Cluster == nil || routes[0].consumer.runsTask(0))
}

// routeOut publishes msgs into the route edges, in order, and moves the position past them. A
// record without a reader's key is that reader's dead letter, as when it reads the source
// itself; one whose routed copy would exceed the server's max payload too.
func (s *source) routeOut(ctx context.Context, msgs []natsio.Message) error {
	if s.replayUntil > 0 {
		s.countReplayed(msgs)
	}
	if err := s.p.gate(); err != nil {
		return fmt.Errorf("source %q: router: %w", s.cfg.Name, err)
	}
	for i := range msgs {
		m := &msgs[i]
		for _, e := range s.routes {
			if err := s.routeRecord(ctx, e, m); err != nil {
				return err
			}
		}
	}
	s.position.Store(msgs[len(msgs)-1].Sequence)
	return nil
}

// routeRecord publishes m into route edge e.
func (s *source) routeRecord(ctx context.Context, e *exchangeEdge, m *natsio.Message) error {
	b := e.consumer
	key, err := b.recordKey(e.input, m)
	if err != nil {
		return s.p.countDeadLetter(b, reasonKey, s.p.deadLetter(ctx, b, s, m, "key: "+err.Error()))
	}
	msg := natsio.OutMessage{
		Subject: e.edge.Subject(state.KeyGroup(key, b.cfg.MaxParallelism)),
		MsgID:   exchange.MsgID(exchange.Position{Producer: s.cfg.Name, Input: s.cfg.Name, Sequence: m.Sequence}),
		Data:    m.Data,
		Header:  routedHeader(m),
	}
	if limit, size := s.p.maxPayload(), natsio.WireSize(msg); limit > 0 && int64(size) > limit {
		reason := fmt.Sprintf("routed to operator %q through exchange %s, the record is %d bytes with its headers, over the server's max_payload of %d bytes", b.cfg.Name, e.edge, size, limit)
		return s.p.countDeadLetter(b, reasonOutputRefused, s.p.deadLetter(ctx, b, s, m, reason))
	}
	if err := s.p.deliver(ctx, msg, execOrigin{seq: m.Sequence, output: -1}); err != nil {
		return fmt.Errorf("source %q: route to operator %q through exchange %s: %w", s.cfg.Name, b.cfg.Name, e.edge, err)
	}
	return nil
}

// routedHeader is the routed copy's header: the record's own, but for the names the exchange
// reserves (a record must not forge a marker) and JetStream's publish headers (Nats-*: they
// would change what the exchange's publish means), plus its subject and event time.
func routedHeader(m *natsio.Message) nats.Header {
	h := nats.Header{}
	for name, values := range m.Header {
		if !exchange.ReservedHeader(name) && !strings.HasPrefix(strings.ToLower(name), "nats-") {
			h[name] = values
		}
	}
	h.Set(exchange.HeaderSubject, m.Subject)
	h.Set(exchange.HeaderEventTime, exchange.EncodeEventTime(m.Time))
	return h
}

// publishRouteMarkers publishes the marker of checkpoint id on every key-group subject of each
// route edge, after the records routed before the barrier: the router is the single producer
// task of its edges.
func (s *source) publishRouteMarkers(ctx context.Context, id uint64) error {
	data := exchange.EncodeMarker(exchange.Marker{Checkpoint: id, Generation: s.p.generation.Load(), Task: 0, Tasks: 1})
	for _, e := range s.routes {
		if err := publishMarkerCopies(ctx, s.p, e, data); err != nil {
			return fmt.Errorf("source %q: router: marker of checkpoint %d to exchange %s: %w", s.cfg.Name, id, e.edge, err)
		}
	}
	return nil
}

// checkRouting refuses to restore a checkpoint taken while a source was routed when the config
// no longer routes it, or the other way round, unless the checkpoint is the final one of a
// graceful stop. Any other checkpoint can hold records between the router and its readers (in
// the exchange, after the readers' positions), which reading the source directly would lose,
// or readers' positions in the source behind the router's, from which a router would route
// records their state already counts.
func (p *Pipeline) checkRouting() error {
	if err := p.checkExchangeNames(); err != nil {
		return err
	}
	if p.restored == nil || p.cleanRestore {
		return nil
	}
	m := p.restored.Manifest
	for i := range p.cfg.Sources {
		sc := &p.cfg.Sources[i]
		then, known := routedIn(m, sc.Name)
		if !known || then == sc.Route {
			continue
		}
		return fmt.Errorf("%w %d: source %q: the checkpoint was taken with route = %t and the config says route = %t; "+
			"a checkpoint not taken at a graceful stop can hold records between the router and its readers, which the change would lose or count twice. "+
			"Nothing was changed: run with route = %t until a graceful stop (SIGTERM, or --stop-when-idle), then change it; or start over with --empty-state",
			ErrRecovery, m.ID, sc.Name, then, sc.Route, then)
	}
	return nil
}

// routedIn reports whether checkpoint m was taken with source routed (it holds positions of the
// source's route edges), and whether m knows the source at all.
func routedIn(m checkpoint.Manifest, source string) (routed, known bool) {
	for _, s := range m.Sources {
		switch {
		case strings.HasPrefix(s.Name, source+">"):
			return true, true
		case s.Name == source:
			known = true
		}
	}
	return false, known
}

// checkExchangeNames refuses to restore a checkpoint that recorded an exchange stream's position
// under another source name than the config gives its reader now: the readers of an operator's
// output changed order (the first in the file reads it under the output's name, the others
// under "A.o>B"), and the renamed reader would find no position and read the stream again from
// its start.
func (p *Pipeline) checkExchangeNames() error {
	if p.restored == nil {
		return nil
	}
	m := p.restored.Manifest
	for _, e := range p.exchanges {
		for _, s := range m.Sources {
			if s.Stream == e.source.Stream && s.Name != e.source.Name {
				return fmt.Errorf("%w %d: operator %q reads exchange %s as source %q, but the checkpoint holds its position as %q: "+
					"the operators reading %q changed order (the first in the file reads it as %q, every other one as %q). "+
					"Nothing was changed: put the operators back in their order, or start over with --empty-state",
					ErrRecovery, m.ID, e.consumer.cfg.Name, e.edge, e.source.Name, s.Name, e.inputName(), e.inputName(), e.inputName()+">OPERATOR")
			}
		}
	}
	return nil
}
