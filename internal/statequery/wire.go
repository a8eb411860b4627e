package statequery

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/internal/engine/control"
)

// Subject is where a running pipeline answers live state queries: a JSON
// Request in, a JSON Reply out (docs/state-queries.md). Only a user allowed
// to publish to it may read state; the embedded server's data user is not.
func Subject(pipeline string) string { return "wasmstream.query." + pipeline }

// Request asks for the state of one record key of an operator.
type Request struct {
	Operator string `json:"operator"`
	// Key is the record key as text; KeyBase64, when set, is a key of any
	// bytes and wins.
	Key       string `json:"key,omitempty"`
	KeyBase64 []byte `json:"key_base64,omitempty"`
	// State limits the answer to one state (and a map state's entries).
	State string `json:"state,omitempty"`
}

// KeyBytes is the record key the request names.
func (r Request) KeyBytes() []byte {
	if r.KeyBase64 != nil {
		return r.KeyBase64
	}
	return []byte(r.Key)
}

// Reply codes: what went wrong, for a client to tell apart.
const (
	CodeUnknownOperator = "unknown_operator"
	CodeKeyNotFound     = "key_not_found"
	CodeFailed          = "failed"
)

// Reply answers a Request: the entries of the key, read by the task that
// owns its key group, or an error with its code.
type Reply struct {
	Task    int          `json:"task"`
	Entries []EntryReply `json:"entries,omitempty"`
	Error   string       `json:"error,omitempty"`
	Code    string       `json:"code,omitempty"`
}

// EntryReply is an Entry on the wire; bytes are base64 (JSON's []byte).
type EntryReply struct {
	KeyGroup  int    `json:"key_group"`
	Name      string `json:"name"`
	Key       []byte `json:"key"`
	Value     []byte `json:"value"`
	ExpiresAt int64  `json:"expires_at,omitempty"`
}

// EntriesOf converts entries for a Reply.
func EntriesOf(entries []Entry) []EntryReply {
	out := make([]EntryReply, len(entries))
	for i, e := range entries {
		out[i] = EntryReply(e)
	}
	return out
}

// NotFoundError is the message of a live get that found nothing.
func NotFoundError(pipeline, operator string, key []byte, name string, task int) string {
	what := "no state"
	if name != "" {
		what = fmt.Sprintf("no state %q", name)
	}
	return fmt.Sprintf("operator %q has %s for key %q in the running pipeline %q (task %d)", operator, what, key, pipeline, task)
}

// Live sends req to the running pipeline and returns the entries; a
// reply's error wraps ErrUnknownOperator or ErrKeyNotFound by its code,
// and no answer is control.ErrNotRunning.
func Live(nc *nats.Conn, pipeline string, req Request, timeout time.Duration) ([]Entry, int, error) {
	data, err := json.Marshal(req)
	if err != nil {
		return nil, 0, err
	}
	subject := Subject(pipeline)
	msg, err := nc.Request(subject, data, timeout)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return nil, 0, fmt.Errorf("%w: pipeline %q: no process answers on %s; start it with wasmstream run, or read a checkpoint without --live "+
			"(on an external server, the pipeline's user also needs to subscribe to %s: docs/nats-permissions.md)", control.ErrNotRunning, pipeline, subject, subject)
	case err != nil:
		return nil, 0, fmt.Errorf("pipeline %q: state query on %s: %w", pipeline, subject, err)
	}
	var r Reply
	if err := json.Unmarshal(msg.Data, &r); err != nil {
		return nil, 0, fmt.Errorf("pipeline %q: unreadable state query answer %q: %w", pipeline, msg.Data, err)
	}
	if r.Error != "" {
		return nil, r.Task, replyError(r)
	}
	out := make([]Entry, len(r.Entries))
	for i, e := range r.Entries {
		out[i] = Entry(e)
	}
	return out, r.Task, nil
}

func replyError(r Reply) error {
	switch r.Code {
	case CodeUnknownOperator:
		return fmt.Errorf("%w: %s", ErrUnknownOperator, r.Error)
	case CodeKeyNotFound:
		return fmt.Errorf("%w: %s", ErrKeyNotFound, r.Error)
	}
	return errors.New(r.Error)
}
