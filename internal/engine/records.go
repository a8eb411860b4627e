package engine

import (
	"sort"
	"strconv"

	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/natsio"
)

// inputRecord is a source message routed to one operator task.
type inputRecord struct {
	source int // index into the pipeline's sources
	input  uint32
	msg    *natsio.Message
	key    []byte
}

// Headers the engine adds to what it publishes.
const (
	HeaderError          = "Wasmstream-Error"
	HeaderOperator       = "Wasmstream-Operator"
	HeaderSourceStream   = "Wasmstream-Source-Stream"
	HeaderSourceSequence = "Wasmstream-Source-Sequence"
	HeaderSourceSubject  = "Wasmstream-Source-Subject"
	// HeaderDataOmitted is on a dead letter that would not fit the server's
	// max payload with the record's data: it says how many bytes were left
	// out (the record stays in its source stream).
	HeaderDataOmitted = "Wasmstream-Data-Omitted"
)

// toHostRecord converts without copying payloads.
func toHostRecord(r *inputRecord, hdrBuf []byte) (host.Record, []byte) {
	start := len(hdrBuf)
	if len(r.msg.Header) > 0 {
		// Sorted: nats.Header is a map, and a replay must hand the guest
		// the same bytes.
		names := make([]string, 0, len(r.msg.Header))
		for name := range r.msg.Header {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			for _, v := range r.msg.Header[name] {
				hdrBuf = abi.AppendHeader(hdrBuf, name, v)
			}
		}
	}
	return host.Record{
		Key:       r.key,
		Value:     r.msg.Data,
		Headers:   hdrBuf[start:len(hdrBuf):len(hdrBuf)],
		EventTime: r.msg.Time.UnixNano(),
		Input:     r.input,
	}, hdrBuf
}

// natsHeader decodes a guest's abi header list; the host validated it at emit.
func natsHeader(encoded []byte) nats.Header {
	if len(encoded) == 0 {
		return nil
	}
	h := nats.Header{}
	hr := abi.NewHeaderReader(encoded)
	for {
		name, value, more, err := hr.Next()
		if err != nil || !more {
			return h
		}
		h.Add(string(name), string(value))
	}
}

// outputMsgID derives a Nats-Msg-Id from the input's position and the
// output's index within that input, so a replay of the same input yields the
// same ids and JetStream's duplicate window absorbs them.
func outputMsgID(pipeline, operator, source string, seq uint64, output int) string {
	return pipeline + "." + operator + "." + source + "." + strconv.FormatUint(seq, 10) + "." + strconv.Itoa(output)
}
