package engine

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
)

// Outputs and dead letters must fit the server's max payload with their
// headers (docs/config.md, "Message size"). An output that does not fit can
// never be published: nats.go refuses it, the sink's error is sticky, and
// every restart would replay the record into the same error. So its record
// is isolated like one the guest rejected: decided on the attempt's outputs
// before its state writes are committed (isolate.Runner.CheckOutputs), from
// the record and what the operator emitted for it, and remembered in the
// committed dead-letter set, so that a replay makes the same decision.

// preparedOutput is an output of the accepted attempt, built for one of its destinations: a
// sink, or the exchange of an operator that reads it.
type preparedOutput struct {
	msg    natsio.OutMessage
	sink   *sinkRef      // nil for an exchange
	edge   *exchangeEdge // nil for a sink
	origin execOrigin    // the input record and guest output it came from
}

// destination names where out goes, for errors.
func (out *preparedOutput) destination() string {
	if out.edge != nil {
		return fmt.Sprintf("exchange %s (stream %s)", out.edge.edge, out.edge.edge.StreamName())
	}
	return fmt.Sprintf("sink %q (subject %s)", out.sink.cfg.Name, out.sink.cfg.Subject)
}

func (t *task) resetPrepared() {
	clear(t.prepared)
	t.prepared = t.prepared[:0]
}

// prepareOutputs is the batch's CheckOutputs: it builds every output of an
// attempt into the message each of its destinations sends (t.prepared): its
// sink, and the exchange of every operator that reads it. It refuses the
// first record with an output over the server's max payload, or one whose
// key the reading operator cannot find (FORMAT.md §1), with the reason.
// recs are the batch the outputs' Record fields index.
func (t *task) prepareOutputs(recs []inputRecord, outs []host.Output) (int, string) {
	t.resetPrepared()
	for i := range outs {
		o := &outs[i]
		r := &recs[o.Record]
		if sink := t.op.sinks[o.Output]; sink != nil {
			if reason := t.prepare(t.sinkOutput(sink, r, o), sink.cfg.Mode, o); reason != "" {
				return o.Record, reason
			}
		}
		for _, e := range t.op.edges[o.Output] {
			out, reason := t.exchangeOutput(e, r, o)
			if reason == "" {
				reason = t.prepare(out, config.ModeIdempotent, o)
			}
			if reason != "" {
				t.resetPrepared()
				return o.Record, reason
			}
		}
	}
	return -1, ""
}

// prepare adds out, built for a destination of the given mode, unless it is over the server's
// max payload: then it returns the reason and forgets what it prepared.
func (t *task) prepare(out preparedOutput, mode string, o *host.Output) string {
	limit := t.op.p.maxPayload()
	if size := wireSize(mode, out.msg); limit > 0 && int64(size) > limit {
		t.resetPrepared()
		return oversizeReason(t.op.p.cfg, o.Seq, out.destination(), size, limit)
	}
	out.msg.Data = append([]byte(nil), o.Value...) // o.Value lives in the instance's arena
	t.prepared = append(t.prepared, out)
	return ""
}

// sinkOutput is output o of record r as sink publishes it.
func (t *task) sinkOutput(sink *sinkRef, r *inputRecord, o *host.Output) preparedOutput {
	ids := outputIDs{pipeline: t.op.p.cfg.Name, operator: t.op.cfg.Name}
	return preparedOutput{sink: sink, origin: execOrigin{seq: r.msg.Sequence, output: o.Output}, msg: natsio.OutMessage{
		Subject: sink.cfg.Subject,
		MsgID:   ids.forRecord(sink.cfg.Mode, t.op.p.sources[r.source], r, o.Seq),
		Data:    o.Value,
		Header:  t.op.p.withProvenance(outputHeader(natsHeader(o.Headers), o.Key)),
	}}
}

// wireSize is what msg counts against max_payload when a sink of mode
// sends it; an atomic batch adds its headers.
func wireSize(mode string, msg natsio.OutMessage) int {
	if mode == config.ModeTransactional {
		return natsio.BatchWireSize(msg)
	}
	return natsio.WireSize(msg)
}

// oversizeReason is the dead-letter reason of a record whose output seq
// (0-based) does not fit.
func oversizeReason(cfg *config.Pipeline, seq int, destination string, size int, limit int64) string {
	return fmt.Sprintf("output %d of the record (%s) is %d bytes with its headers, over the server's max_payload of %d bytes, "+
		"so it cannot be published; %s, or make the operator emit less", seq+1, destination, size, limit, raiseMaxPayload(cfg))
}

// raiseMaxPayload says where the max payload of the pipeline's server is set.
func raiseMaxPayload(cfg *config.Pipeline) string {
	if cfg.Server.URL == "" {
		return "raise server.max_payload in the pipeline file (the embedded server's limit)"
	}
	return "raise max_payload in the configuration of the NATS server at server.url"
}

// fitDeadLetter makes a dead letter fit the server's max payload. It
// carries the record's data and headers plus the engine's, so a record
// that nearly filled max_payload on its own does not fit again. What does
// not fit is left out in this order: the data (HeaderDataOmitted says how
// many bytes, and where the record stays), the record's own headers, the
// end of the reason.
func fitDeadLetter(msg natsio.OutMessage, m *natsio.Message, engineHeaders nats.Header, limit int64) natsio.OutMessage {
	fits := func() bool { return limit <= 0 || int64(natsio.WireSize(msg)) <= limit }
	if fits() {
		return msg
	}
	where := fmt.Sprintf("%d bytes of data left out to fit the server's max_payload of %d bytes; the record is in stream %s at sequence %d",
		len(m.Data), limit, m.Stream, m.Sequence)
	msg.Data = nil
	msg.Header.Set(HeaderDataOmitted, where)
	if fits() {
		return msg
	}
	msg.Header = maps.Clone(engineHeaders)
	msg.Header.Set(HeaderDataOmitted, where+" (its headers too)")
	if over := int64(natsio.WireSize(msg)) - limit; over > 0 {
		reason := msg.Header.Get(HeaderError)
		msg.Header.Set(HeaderError, reason[:max(len(reason)-int(over)-len("..."), 0)]+"...")
	}
	return msg
}

// MaxPayloadWarning is an operator whose limits let it emit a value larger
// than the server's max payload: an output that large cannot be published,
// and its input record would be dead-lettered.
type MaxPayloadWarning struct {
	Operator      string
	Pos           string // the operator block's position in the config
	MaxValueBytes int
	MaxPayload    int64
	Fix           string // where to raise the server's max payload
}

func (w MaxPayloadWarning) String() string {
	return fmt.Sprintf("%s: operator %q: limits.max_value_bytes %d is above the server's max_payload of %d bytes: "+
		"an output that large cannot be published and its input record would go to the dead-letter subject; "+
		"lower max_value_bytes to less than %d (an output's headers count too) or %s",
		w.Pos, w.Operator, w.MaxValueBytes, w.MaxPayload, w.MaxPayload, w.Fix)
}

// maxPayloadWarning compares an operator's size limits with the server's
// max payload.
func maxPayloadWarning(cfg *config.Pipeline, oc *config.Operator, maxPayload int64) (MaxPayloadWarning, bool) {
	w := MaxPayloadWarning{Operator: oc.Name, Pos: config.Pos(oc.Range), MaxValueBytes: oc.Limits.MaxValueBytes,
		MaxPayload: maxPayload, Fix: raiseMaxPayload(cfg)}
	return w, maxPayload > 0 && int64(oc.Limits.MaxValueBytes) > maxPayload
}

// warnMaxPayload logs, when the run starts, an operator's size limits that
// exceed the server's max payload.
func (op *operator) warnMaxPayload() {
	if w, ok := maxPayloadWarning(op.p.cfg, op.cfg, op.p.maxPayload()); ok {
		op.p.logger.Warn(w.String())
	}
}

// payloadCheckTimeout bounds validate's connection to a server at url.
const payloadCheckTimeout = 5 * time.Second

// PayloadWarnings is validate's check of the operators' size limits against
// the server's max payload: the embedded server's comes from the config;
// a server at url is asked (a short connection that changes nothing). An
// error means the check could not be made.
func PayloadWarnings(ctx context.Context, cfg *config.Pipeline) ([]MaxPayloadWarning, error) {
	limit, err := serverMaxPayload(ctx, cfg)
	if err != nil {
		return nil, err
	}
	var out []MaxPayloadWarning
	for i := range cfg.Operators {
		if w, ok := maxPayloadWarning(cfg, &cfg.Operators[i], limit); ok {
			out = append(out, w)
		}
	}
	return out, nil
}

// serverMaxPayload is the max payload of the pipeline's server, without
// starting an embedded one.
func serverMaxPayload(ctx context.Context, cfg *config.Pipeline) (int64, error) {
	if cfg.Server.URL == "" {
		if cfg.Server.MaxPayload == 0 {
			return natsio.DefaultMaxPayload, nil
		}
		return int64(cfg.Server.MaxPayload), nil
	}
	ctx, cancel := context.WithTimeout(ctx, payloadCheckTimeout)
	defer cancel()
	conn, err := natsio.Connect(ctx, serverOptions(cfg, hclog.NewNullLogger()))
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	return conn.MaxPayload(), nil
}
