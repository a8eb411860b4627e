package engine

import (
	"strconv"

	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
)

// Output message ids (docs/sinks.md). A replay of an input yields the same
// ids, so JetStream's duplicate window drops what a crashed run had already
// published.

// eventMsgID is the id of output n of an event with a business identity
// (the source's event_id): a duplicate of the event published upstream, at
// another stream sequence, gets the same output ids.
func eventMsgID(pipeline, operator, source string, eventID []byte, n int) string {
	return pipeline + "." + operator + "." + source + ".id:" + string(eventID) + "." + strconv.Itoa(n)
}

// outputIDs derives the Nats-Msg-Id of each output of a task.
type outputIDs struct {
	pipeline, operator string
}

// forRecord returns the id of output n of r for a sink of the given mode:
// none for at_least_once; the input's position for transactional sinks
// (ids must be unique within an atomic batch, and a business id repeated
// upstream would make a batch look committed); the event id, when the
// source declares one and the record has it, else the position, for
// idempotent sinks.
func (o outputIDs) forRecord(mode string, src *source, r *inputRecord, n int) string {
	switch mode {
	case config.ModeAtLeastOnce:
		return ""
	case config.ModeIdempotent:
		if src.eventID != nil {
			if id, err := src.eventID.ExtractMessage(*r.msg); err == nil && len(id) > 0 {
				return eventMsgID(o.pipeline, o.operator, src.cfg.Name, id, n)
			}
		}
	}
	return outputMsgID(o.pipeline, o.operator, src.cfg.Name, r.msg.Sequence, n)
}

// eventIDExtractor is the extractor of a source's event_id block, or nil.
func eventIDExtractor(sc *config.Source) *natsio.KeyExtractor {
	if sc.EventID == nil {
		return nil
	}
	return &natsio.KeyExtractor{JSONField: sc.EventID.JSONField, SubjectToken: sc.EventID.SubjectToken, Header: sc.EventID.Header}
}

// outputHeader is the output's headers plus the key header.
func outputHeader(h nats.Header, key []byte) nats.Header {
	if len(key) == 0 {
		return h
	}
	if h == nil {
		h = nats.Header{}
	}
	h.Set(HeaderKey, string(key))
	return h
}
