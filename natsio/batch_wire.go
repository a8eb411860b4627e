package natsio

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// batchCommitValue is the Nats-Batch-Commit value that commits a batch
// including the message carrying it ("eob" would commit without it).
const batchCommitValue = "1"

// batchMsg builds message i (0-based) of batch id: the caller's headers
// (copied, never modified), its Nats-Msg-Id and the batch headers.
func batchMsg(id string, i int, m OutMessage, commit bool) *nats.Msg {
	h := make(nats.Header, len(m.Header)+4)
	for k, v := range m.Header {
		h[k] = v
	}
	h[jetstream.MsgIDHeader] = []string{m.MsgID}
	h[server.JSBatchId] = []string{id}
	h[server.JSBatchSeq] = []string{strconv.Itoa(i + 1)}
	if commit {
		h[server.JSBatchCommit] = []string{batchCommitValue}
	} else {
		delete(h, server.JSBatchCommit)
	}
	return &nats.Msg{Subject: m.Subject, Data: m.Data, Header: h}
}

// batchAck is the server's answer to a batch message: empty for a staged
// message, a publish acknowledgement with the batch id and size for the
// commit, or an error.
type batchAck struct {
	Stream string              `json:"stream"`
	Seq    uint64              `json:"seq"` // last stream sequence of the batch
	Batch  string              `json:"batch"`
	Count  uint64              `json:"count"`
	Error  *jetstream.APIError `json:"error"`
}

var errBadBatchAck = errors.New("natsio: malformed atomic batch acknowledgement")

// parseBatchAck decodes an answer. Empty data (a staged message) gives a
// zero batchAck. An answer that carries an error is returned without error:
// the caller decides what the server's refusal means.
func parseBatchAck(data []byte) (batchAck, error) {
	var a batchAck
	if len(data) == 0 {
		return a, nil
	}
	if err := json.Unmarshal(data, &a); err != nil {
		return batchAck{}, fmt.Errorf("%w: %w", errBadBatchAck, err)
	}
	if a.Error != nil && a.Error.ErrorCode == 0 && a.Error.Code == 0 {
		return batchAck{}, fmt.Errorf("%w: an error without a code", errBadBatchAck)
	}
	return a, nil
}

// checkCommitAck verifies that a successful commit answer is about this
// batch, whole: the same id, every message, and a sequence that can end it.
func checkCommitAck(a batchAck, id string, n int) error {
	switch {
	case a.Batch != id:
		return fmt.Errorf("%w: it names batch %q", errBadBatchAck, a.Batch)
	case a.Count != uint64(n):
		return fmt.Errorf("%w: it counts %d messages, the batch has %d", errBadBatchAck, a.Count, n)
	case a.Seq < a.Count:
		return fmt.Errorf("%w: last sequence %d is below the count %d", errBadBatchAck, a.Seq, a.Count)
	case a.Stream == "":
		return fmt.Errorf("%w: no stream name", errBadBatchAck)
	}
	return nil
}
