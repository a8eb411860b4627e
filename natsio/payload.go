package natsio

import (
	"net/textproto"
	"strconv"
	"strings"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// WireSize is what a Sink publish of m counts against the server's
// max_payload (Conn.MaxPayload): the headers as Publish sends them (m.Header
// with the Nats-Msg-Id and without Nats-Batch-* headers, encoded) plus the
// data. The subject is not counted, by nats.go's check or by the server's.
// It is nats.go's Msg.Size of the message Publish sends, computed without
// building it: the engine measures every output.
func WireSize(m OutMessage) int {
	keys, lines := headerLines(m.Header, func(k string) bool { return isBatchHeader(k) || (m.MsgID != "" && k == jetstream.MsgIDHeader) })
	if m.MsgID != "" {
		keys, lines = keys+1, lines+headerLine(jetstream.MsgIDHeader, m.MsgID)
	}
	return framed(keys, lines) + len(m.Data)
}

// longestBatchID and longestBatchSeq are as long as a batch's id and a
// message's sequence in it can be.
var (
	longestBatchID  = strings.Repeat("x", MaxBatchIDLen)
	longestBatchSeq = strconv.Itoa(MaxAtomicBatch)
)

// BatchWireSize bounds from above what m counts against max_payload as a
// message of an atomic batch (PublishAtomicBatch): its headers with its
// Nats-Msg-Id, the batch headers with the longest batch id and sequence
// and the commit header, and its data. It depends on m alone, so a message
// that fits at staging fits in whichever batch it is sent.
func BatchWireSize(m OutMessage) int {
	keys, lines := headerLines(m.Header, func(k string) bool {
		return k == jetstream.MsgIDHeader || k == server.JSBatchId || k == server.JSBatchSeq || k == server.JSBatchCommit
	})
	keys += 4
	lines += headerLine(jetstream.MsgIDHeader, m.MsgID) + headerLine(server.JSBatchId, longestBatchID) +
		headerLine(server.JSBatchSeq, longestBatchSeq) + headerLine(server.JSBatchCommit, batchCommitValue)
	return framed(keys, lines) + len(m.Data)
}

// headerLines counts the keys of h that skip does not leave out and the
// size of their lines as nats.go encodes them.
func headerLines(h nats.Header, skip func(string) bool) (keys, size int) {
	for k, vs := range h {
		if skip(k) {
			continue
		}
		keys++
		for _, v := range vs {
			size += headerLine(k, v)
		}
	}
	return keys, size
}

// headerLine is the encoded size of "k: v\r\n" (nats.go trims the value).
func headerLine(k, v string) int {
	return len(k) + len(": ") + len(textproto.TrimString(v)) + len("\r\n")
}

// framed adds the header block's first line and final CRLF, which nats.go
// sends when the header map has any key.
func framed(keys, lines int) int {
	if keys == 0 {
		return 0
	}
	return len("NATS/1.0\r\n") + lines + len("\r\n")
}
