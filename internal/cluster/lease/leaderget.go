package lease

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// requestTimeout bounds a request whose context has no deadline, as
// nats.go's JetStream calls do with their default timeout.
const requestTimeout = 5 * time.Second

// msgGetRequest and msgGetResponse are the JetStream API's
// STREAM.MSG.GET request and response (nats-server JSApiMsgGetRequest).
type msgGetRequest struct {
	LastFor string `json:"last_by_subj"`
}

type msgGetResponse struct {
	Error   *jetstream.APIError `json:"error,omitempty"`
	Message *storedMsg          `json:"message,omitempty"`
}

type storedMsg struct {
	Subject  string    `json:"subject"`
	Sequence uint64    `json:"seq"`
	Header   []byte    `json:"hdrs,omitempty"`
	Data     []byte    `json:"data,omitempty"`
	Time     time.Time `json:"time"`
}

// LeaderGet returns the last message stored on subject in stream, read
// through $JS.API.STREAM.MSG.GET, which only the stream's leader answers.
// nats.go's GetLastMsgForSubject and kv.Get use Direct Get instead when
// the stream allows it (every KV does), and a replica that is behind
// answers those with an old value. No message is ErrNotFound. During an
// election the request times out or reports the cluster unavailable
// (10008); callers retry.
//
// A leader that was just replaced but does not know it yet (frozen or cut
// off) can still answer; decide by fenced writes, not by reads.
func LeaderGet(ctx context.Context, js jetstream.JetStream, stream, subject string) (*jetstream.RawStreamMsg, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, requestTimeout)
		defer cancel()
	}
	req, err := json.Marshal(msgGetRequest{LastFor: subject})
	if err != nil {
		return nil, err
	}
	reply, err := js.Conn().RequestWithContext(ctx, apiPrefix(js)+"STREAM.MSG.GET."+stream, req)
	if err != nil {
		return nil, fmt.Errorf("leader read of %s in stream %s: %w", subject, stream, err)
	}
	return decodeMsgGet(reply.Data, stream, subject)
}

func decodeMsgGet(data []byte, stream, subject string) (*jetstream.RawStreamMsg, error) {
	var resp msgGetResponse
	if err := json.Unmarshal(data, &resp); err != nil {
		return nil, fmt.Errorf("leader read of %s in stream %s: bad response: %w", subject, stream, err)
	}
	if resp.Error != nil {
		if resp.Error.ErrorCode == jetstream.JSErrCodeMessageNotFound {
			return nil, fmt.Errorf("%w: %s in stream %s", ErrNotFound, subject, stream)
		}
		return nil, fmt.Errorf("leader read of %s in stream %s: %w", subject, stream, resp.Error)
	}
	if resp.Message == nil {
		return nil, fmt.Errorf("leader read of %s in stream %s: %w", subject, stream, errors.New("response without message"))
	}
	return rawMsg(resp.Message)
}

func rawMsg(m *storedMsg) (*jetstream.RawStreamMsg, error) {
	raw := &jetstream.RawStreamMsg{Subject: m.Subject, Sequence: m.Sequence, Data: m.Data, Time: m.Time, Header: nats.Header{}}
	if len(m.Header) > 0 {
		h, err := nats.DecodeHeadersMsg(m.Header)
		if err != nil {
			return nil, fmt.Errorf("message %d on %s: headers: %w", m.Sequence, m.Subject, err)
		}
		raw.Header = h
	}
	return raw, nil
}

// apiPrefix is the JetStream API prefix js sends its requests with, as
// nats.go builds it: "$JS.<domain>.API." with a JetStream domain, the API
// prefix of an account import, else "$JS.API.".
func apiPrefix(js jetstream.JetStream) string {
	o := js.Options()
	switch {
	case o.Domain != "":
		return "$JS." + o.Domain + ".API."
	case o.APIPrefix != "":
		return strings.TrimSuffix(o.APIPrefix, ".") + "."
	}
	return jetstream.DefaultAPIPrefix
}
