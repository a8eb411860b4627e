package natsio

import (
	"context"
	"errors"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// DefaultOutageBudget is how long a Sink keeps resending unacknowledged
// messages while NATS is unreachable, when SinkOptions leaves it 0. It is
// well above a JetStream leader election or a server restart (a few
// seconds) and well below JetStream's default duplicate window (2m), which
// is what makes the resends safe.
const DefaultOutageBudget = 30 * time.Second

// resendPause is the least time between two resends of the same message:
// a server that answers "no responders" right after a restart must not be
// flooded, and a reconnect is polled no faster.
const resendPause = 250 * time.Millisecond

// Client pings. A server that is frozen (stopped, or its machine gone
// without closing the socket) sends no disconnect: only unanswered pings
// reveal it, after about pingInterval × (maxPingsOutstanding + 1). With
// nats.go's defaults (2m, 2) that took minutes, during which every publish
// waited; with these a frozen server is noticed in 2–3 s and the Sink
// resends through the reconnect. A write to a frozen server blocks once
// the socket buffers are full, and nats.go holds the connection's lock
// meanwhile, so pings cannot run: flusherTimeout bounds such a write
// (nats.go's default is a minute).
const (
	pingInterval        = time.Second
	maxPingsOutstanding = 2
	flusherTimeout      = 5 * time.Second
)

// ErrUnreachable reports that NATS (the connection, or JetStream behind it)
// did not answer for longer than the outage budget allowed. The error
// wrapping it names the server and what was not done.
var ErrUnreachable = errors.New("natsio: NATS unreachable")

// IsOutage reports whether err means only that NATS could not be reached
// (the connection is down, reconnecting or closed, JetStream did not
// answer in time or had no responder, or a deadline ended the wait), as
// opposed to a refusal that a retry meets again (a permission, a payload
// over max_payload, a stream that does not exist, a wrong expected
// sequence). A publish that failed by an outage is safe to send again with
// the same message id; a checkpoint that failed by one says nothing about
// the disk.
func IsOutage(err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, ErrUnreachable):
		return true
	case errors.Is(err, ErrNoStream), errors.Is(err, nats.ErrPermissionViolation),
		errors.Is(err, nats.ErrMaxPayload), errors.Is(err, context.Canceled):
		return false // refusals (ErrNoStream is only returned once checked)
	}
	for _, target := range outageErrors {
		if errors.Is(err, target) {
			return true
		}
	}
	var api *jetstream.APIError
	return errors.As(err, &api) && outageCodes[api.ErrorCode]
}

// outageErrors are the nats.go errors of a server that cannot be reached or
// does not answer.
var outageErrors = []error{
	nats.ErrConnectionClosed, nats.ErrConnectionReconnecting, nats.ErrDisconnected,
	nats.ErrStaleConnection, nats.ErrNoServers, nats.ErrReconnectBufExceeded,
	nats.ErrTimeout, nats.ErrNoResponders, context.DeadlineExceeded,
	jetstream.ErrNoStreamResponse, jetstream.ErrAsyncPublishTimeout,
	// A write on a socket the server just closed (it stopped, it restarts)
	// fails with these before nats.go notices the disconnect.
	syscall.EPIPE, syscall.ECONNRESET,
}

// outageCodes are JetStream API errors of a cluster that is electing a
// leader or has lost its quorum: the same request succeeds once it is back.
var outageCodes = map[jetstream.ErrorCode]bool{
	jetstream.ErrorCode(server.JSClusterNotAvailErr): true, // JetStream system temporarily unavailable
	jetstream.ErrorCode(server.JSClusterNoPeersErrF): true,
	jetstream.ErrorCode(server.JSStreamOfflineErr):   true,
	// A message sent again (same id) while the stream still processes the
	// first copy, as after an election: sent later, it is acknowledged as
	// the duplicate it is.
	jetstream.ErrorCode(server.JSStreamDuplicateMessageConflict): true,
}
