package engine

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/exchange"
	"github.com/wasmstream/wasmstream/internal/state"
	"github.com/wasmstream/wasmstream/natsio"
)

// exchangeOutput is output o of record r as the exchange of edge e carries it (FORMAT.md §3):
// on the subject of the consumer's key group, with the producer's event time and an id made
// of what caused it (§4). A non-empty reason refuses r: the consumer's key rule finds no
// usable key in the output, so it could reach none of the consumer's tasks (§1).
func (t *task) exchangeOutput(e *exchangeEdge, r *inputRecord, o *host.Output) (preparedOutput, string) {
	h := exchangeHeader(natsHeader(o.Headers), o.Key)
	h.Set(exchange.HeaderEventTime, exchange.EncodeEventTime(r.msg.Time))
	b := e.consumer
	key, err := checkedKey(b.keyers[e.input].Extract("", h, o.Value))
	if err != nil {
		return preparedOutput{}, fmt.Sprintf("output %d of the record goes to operator %q through exchange %s, whose key for input %q it lacks: %v; "+
			"emit outputs that carry the key, or change the key of input %q", o.Seq+1, b.cfg.Name, e.edge, e.inputName(), err, e.inputName())
	}
	// The source's name, not the input's: a routed input's sequences are those of its route
	// edge's stream (source "a>b"), and must not meet the ids of the same input read directly.
	id := exchange.MsgID(exchange.Position{Producer: t.op.cfg.Name, Input: t.op.p.sources[r.source].cfg.Name, Sequence: r.msg.Sequence, Emit: o.Seq})
	msg := natsio.OutMessage{Subject: e.edge.Subject(state.KeyGroup(key, b.cfg.MaxParallelism)), MsgID: id, Data: o.Value, Header: h}
	return preparedOutput{msg: msg, edge: e, origin: execOrigin{seq: r.msg.Sequence, output: o.Output}}, ""
}

// exchangeHeader is what the guest emitted without the names the exchange reserves (a guest
// must not forge a marker), plus the emitted key.
func exchangeHeader(guest nats.Header, key []byte) nats.Header {
	h := nats.Header{}
	for name, values := range guest {
		if !exchange.ReservedHeader(name) {
			h[name] = values
		}
	}
	return outputHeader(h, key)
}

// publishMarkers publishes the marker of checkpoint id on every key-group subject of each edge
// the task's operator writes (FORMAT.md §5), after the outputs of every record before the
// barrier: the sink keeps their order. Markers carry no record id: one of a checkpoint id a
// later run reuses must not be absorbed as a duplicate.
func (t *task) publishMarkers(ctx context.Context, id uint64) error {
	m := exchange.Marker{Checkpoint: id, Generation: t.op.p.generation.Load(), Task: uint32(t.index), Tasks: uint32(t.op.cfg.Parallelism)}
	data := exchange.EncodeMarker(m)
	for _, edges := range t.op.edges {
		for _, e := range edges {
			if err := publishMarkerCopies(ctx, t.op.p, e, data); err != nil {
				return fmt.Errorf("operator %q task %d: marker of checkpoint %d to exchange %s: %w", t.op.cfg.Name, t.index, id, e.edge, err)
			}
		}
	}
	return nil
}

// publishMarkerCopies publishes the encoded marker data on every key-group subject of e.
func publishMarkerCopies(ctx context.Context, p *Pipeline, e *exchangeEdge, data []byte) error {
	for kg := range e.consumer.cfg.MaxParallelism {
		h := nats.Header{}
		h.Set(exchange.HeaderMarker, fmt.Sprint(exchange.MarkerVersion))
		if err := p.sink.Publish(ctx, natsio.OutMessage{Subject: e.edge.Subject(kg), Data: data, Header: h}); err != nil {
			return err
		}
	}
	return nil
}
