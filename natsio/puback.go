package natsio

import (
	"encoding/json"

	"github.com/nats-io/nats.go/jetstream"
)

// Reading JetStream's publish replies. Every record a Sink publishes gets
// one, so decoding it is on the hot path; nats.go decodes it with
// encoding/json. parsePubAck reads the usual reply,
// {"stream":"OUT","seq":7} with "duplicate":true or "domain" at times,
// with the JSON scanner (jsonscan.go) and leaves anything else (an error
// reply, an escape, a key in another case, a value of another type) to
// encoding/json with nats.go's types. The fast path only answers when
// encoding/json would answer the same (FuzzParsePubAck checks it), so
// the result is nats.go's: the ack, the server's *jetstream.APIError, or
// jetstream.ErrInvalidJSAck.

// pubAck is what a Sink keeps of a publish acknowledgement.
type pubAck struct {
	Sequence  uint64
	Duplicate bool
}

// parsePubAck reads a publish reply as nats.go does.
func parsePubAck(data []byte) (pubAck, error) {
	if ack, ok := scanPubAck(data); ok {
		return ack, nil
	}
	return decodePubAck(data)
}

// pubAckReply has the shape of nats.go's pubAckResponse.
type pubAckReply struct {
	apiReply
	*jetstream.PubAck
}

// apiReply has the shape of nats.go's apiResponse.
type apiReply struct {
	Type  string              `json:"type"`
	Error *jetstream.APIError `json:"error,omitempty"`
}

// decodePubAck is nats.go's decoding of a publish reply (handleAsyncReply).
func decodePubAck(data []byte) (pubAck, error) {
	var r pubAckReply
	if err := json.Unmarshal(data, &r); err != nil {
		return pubAck{}, jetstream.ErrInvalidJSAck
	}
	if r.Error != nil {
		return pubAck{}, r.Error
	}
	if r.PubAck == nil || r.Stream == "" {
		return pubAck{}, jetstream.ErrInvalidJSAck
	}
	return pubAck{Sequence: r.Sequence, Duplicate: r.Duplicate}, nil
}

// pubAckNames are the JSON names pubAckReply decodes. encoding/json
// matches names ignoring case, so a key that equals one but for case is
// left to it.
var pubAckNames = []string{"type", "error", "stream", "seq", "duplicate", "domain", "val"}

// scanPubAck reads a successful publish reply; false: leave data to
// decodePubAck.
func scanPubAck(data []byte) (pubAck, bool) {
	s := scanner{data: data}
	s.skipSpace()
	if s.peek() != '{' {
		return pubAck{}, false
	}
	var ack pubAck
	stream, ok := false, true
	err := s.scanObject(func(key []byte, keyEscaped bool, vstart int, vkind jsonKind, vescaped bool) {
		if !ok {
			return
		}
		raw := s.valueSpan(vstart, vkind)
		switch {
		case keyEscaped:
			ok = false
		case string(key) == "stream":
			ok = vkind == jsonString && !vescaped
			stream = len(raw) > 0
		case string(key) == "seq":
			ack.Sequence, ok = plainUint(raw, vkind)
		case string(key) == "duplicate":
			ok = vkind == jsonBool
			ack.Duplicate = ok && raw[0] == 't'
		case string(key) == "domain", string(key) == "val", string(key) == "type":
			ok = vkind == jsonString && !vescaped
		default:
			ok = !foldsToPubAckName(key)
		}
	})
	if err != nil || !ok || !stream || !s.atEnd() {
		return pubAck{}, false
	}
	return ack, true
}

// plainUint reads a JSON number made of digits only that fits a uint64.
func plainUint(raw []byte, kind jsonKind) (uint64, bool) {
	if kind != jsonNumber || len(raw) == 0 || len(raw) > 20 {
		return 0, false
	}
	var n uint64
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (1<<64-1-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// foldsToPubAckName reports a key that encoding/json could match to a
// name of pubAckNames: one equal to it ignoring ASCII case, or one that
// is not ASCII (Unicode folding, e.g. U+017F for "s").
func foldsToPubAckName(key []byte) bool {
	for _, c := range key {
		if c >= 0x80 {
			return true
		}
	}
	for _, name := range pubAckNames {
		if asciiEqualFold(string(key), name) {
			return true
		}
	}
	return false
}
