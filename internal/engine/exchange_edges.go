package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/exchange"
	"github.com/wasmstream/wasmstream/internal/exchange/exchangejs"
	"github.com/wasmstream/wasmstream/natsio"
)

// An exchange edge A.o -> B (internal/exchange/FORMAT.md) is a sink on the producer's side and
// a source on the consumer's: A's tasks publish what they emit to o, through the pipeline's
// idempotent sink, on the subject of B's key group for it, and a barrier marker on every
// subject at each snapshot; one source of the pipeline, named like B's input ("A.o"), reads
// the edge's stream and routes its records to B's tasks like any source's (exchange_source.go).

// exchangeEdge is one edge as the runtime wires it.
type exchangeEdge struct {
	edge     exchange.Edge
	consumer *operator
	input    uint32        // the index of the edge among the consumer's inputs
	source   config.Source // the source that reads the edge's stream
	// routed is the declared source whose router writes the edge (a route edge,
	// exchange_route.go); nil for an edge from an operator's output.
	routed *config.Source
}

// inputName is the consumer's input as its config writes it: "A.o".
func (e *exchangeEdge) inputName() string { return e.consumer.cfg.Inputs[e.input] }

// wireExchanges finds the pipeline's exchange edges and gives each producer output the edges
// it feeds: one per operator reading it, each with a stream of its own.
func (p *Pipeline) wireExchanges() error {
	readers := map[string]bool{}
	for _, b := range p.operators {
		for i, in := range b.cfg.Inputs {
			r, ok := config.ParseInputRef(in)
			if !ok || !r.IsOperatorOutput() {
				continue
			}
			if err := p.wireEdge(b, uint32(i), r, exchangeSourceName(in, b.cfg.Name, !readers[in])); err != nil {
				return err
			}
			readers[in] = true
		}
	}
	return p.wireRoutes()
}

// exchangeSourceName names the source that reads the edge of output input ("A.o") to consumer:
// its positions in the checkpoints, its metrics and logs go by it. The first reader of the output
// in the file's order reads it under the output's name; every other one under "A.o>consumer",
// so that adding a reader after the others renames none.
func exchangeSourceName(input, consumer string, first bool) string {
	if first {
		return input
	}
	return input + ">" + consumer
}

// wireEdge adds the edge of b's input r, read by a source called name.
func (p *Pipeline) wireEdge(b *operator, input uint32, r config.InputRef, name string) error {
	a := p.operator(r.Operator)
	out := a.outputIndex(r.Output)
	if out < 0 {
		return config.Errorf(b.cfg.Range, "operator %q: input %q: operator %q declares no output %q", b.cfg.Name, r, r.Operator, r.Output)
	}
	e := &exchangeEdge{
		edge:     exchange.Edge{Pipeline: p.cfg.Name, Producer: r.Operator, Output: r.Output, Consumer: b.cfg.Name},
		consumer: b, input: input,
	}
	if err := e.edge.Validate(); err != nil {
		return config.Errorf(b.cfg.Range, "operator %q: input %q: %w", b.cfg.Name, r, err)
	}
	e.source = config.Source{Name: name, Stream: e.edge.StreamName(), Subject: e.edge.StreamSubject(), Range: b.cfg.Range}
	a.edges[out] = append(a.edges[out], e)
	p.exchanges = append(p.exchanges, e)
	return nil
}

// ensureExchanges creates the stream of every edge, or checks the one that exists. A run of one
// process that starts over with --empty-state first deletes an exchange stream that holds
// anything: its records belong to the run given up, which the consumers would read again from
// the start, and its duplicate window remembers that run's record ids, which the new run's
// records reuse (after a source stream was created again, for other records) and would be
// dropped as duplicates. A first run, or one after a crash before the first checkpoint, keeps
// them: its records are those of the crashed run again, which the window drops, and the
// consumers read the stream from its start, at the same sequences, so that ids derived from
// them downstream (an idempotent sink's) stay the same. A cluster part leaves them: the other
// workers' parts may already write into them.
func (p *Pipeline) ensureExchanges(ctx context.Context) error {
	if p.restored == nil && p.opts.Recovery.EmptyState && p.opts.Cluster == nil {
		if err := p.deleteUsedExchanges(ctx); err != nil {
			return err
		}
	}
	_, err := EnsureExchanges(ctx, p.cfg, p.conn)
	return err
}

// deleteUsedExchanges deletes the exchange streams that ever stored a message.
func (p *Pipeline) deleteUsedExchanges(ctx context.Context) error {
	for _, e := range p.exchanges {
		st, err := p.conn.JS.Stream(ctx, e.source.Stream)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("exchange %s: stream %s: %w", e.edge, e.source.Stream, err)
		}
		if st.CachedInfo().State.LastSeq == 0 {
			continue
		}
		p.logger.Warn("starting from empty state: deleting the exchange stream of an earlier run", "exchange", e.edge.String(), "stream", e.source.Stream,
			"messages", st.CachedInfo().State.Msgs)
		if err := p.conn.JS.DeleteStream(ctx, e.source.Stream); err != nil {
			return fmt.Errorf("exchange %s: delete stream %s of an earlier run: %w", e.edge, e.source.Stream, err)
		}
	}
	return nil
}

// EnsureExchanges creates the exchange stream of every edge of cfg (an operator reading
// another's output), with cfg.ExchangeReplicas replicas, or checks the one that exists
// (exchangejs.EnsureExchange: it never changes one), and returns the streams' names in the
// config's order. `wasmstream deploy` calls it for a cluster, so that replicated streams are
// created before the workers start.
func EnsureExchanges(ctx context.Context, cfg *config.Pipeline, conn *natsio.Conn) ([]string, error) {
	var names []string
	for _, ce := range configEdges(cfg) {
		spec := exchange.StreamSpec{Edge: ce.edge, DuplicateWindow: cfg.Exchange.DuplicateWindow, Replicas: cfg.ExchangeReplicas()}
		if _, err := exchangejs.EnsureExchange(ctx, conn, spec); err != nil {
			return nil, fmt.Errorf("%s: operator %q: input %q: %w", config.Pos(cfg.Operator(ce.edge.Consumer).Range), ce.edge.Consumer, ce.input, err)
		}
		names = append(names, ce.edge.StreamName())
	}
	return names, nil
}

// ExchangeStreams names the exchange streams of cfg's edges, in the config's order.
func ExchangeStreams(cfg *config.Pipeline) []string {
	var names []string
	for _, ce := range configEdges(cfg) {
		names = append(names, ce.edge.StreamName())
	}
	return names
}

// sourceConfigs are the sources the pipeline reads: the declared ones, then one per exchange
// edge.
func (p *Pipeline) sourceConfigs() []*config.Source {
	out := make([]*config.Source, 0, len(p.cfg.Sources)+len(p.exchanges))
	for i := range p.cfg.Sources {
		out = append(out, &p.cfg.Sources[i])
	}
	for _, e := range p.exchanges {
		out = append(out, &e.source)
	}
	return out
}

// exchangeOf is the edge whose source sc is; nil for a declared source.
func (p *Pipeline) exchangeOf(sc *config.Source) *exchangeEdge {
	for _, e := range p.exchanges {
		if &e.source == sc {
			return e
		}
	}
	return nil
}
