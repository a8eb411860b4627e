package natsio

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestIsOutage: what a checkpoint may blame on NATS being away (resent, not
// counted as a failure) and what it may not (a refusal a retry meets again,
// or a local fault).
func TestIsOutage(t *testing.T) {
	apiErr := func(code server.ErrorIdentifier) error {
		return &jetstream.APIError{ErrorCode: jetstream.ErrorCode(code), Description: "test"}
	}
	canceled, stop := context.WithCancelCause(context.Background())
	stop(nats.ErrDisconnected)
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"broken pipe (write after the server closed the socket)", &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)}, true},
		{"connection reset", fmt.Errorf("publish: %w", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}), true},
		{"connection closed", nats.ErrConnectionClosed, true},
		{"disconnected (acks reset on reconnect)", nats.ErrDisconnected, true},
		{"reconnecting", nats.ErrConnectionReconnecting, true},
		{"stale connection (pings unanswered)", nats.ErrStaleConnection, true},
		{"no servers", nats.ErrNoServers, true},
		{"reconnect buffer full", nats.ErrReconnectBufExceeded, true},
		{"request timeout", nats.ErrTimeout, true},
		{"async ack timeout", jetstream.ErrAsyncPublishTimeout, true},
		{"no responders", nats.ErrNoResponders, true},
		{"no stream response", jetstream.ErrNoStreamResponse, true},
		{"deadline while reconnecting", context.DeadlineExceeded, true},
		{"wrapped by a checkpoint", fmt.Errorf("waiting for output acknowledgements: %w", nats.ErrDisconnected), true},
		{"outage past the budget", fmt.Errorf("%w: %w: message to x: %w", ErrPublish, ErrUnreachable, nats.ErrDisconnected), true},
		{"batch commit unanswered", fmt.Errorf("%w: batch b: no answer (%w)", ErrBatchUnacknowledged, nats.ErrTimeout), true},
		{"request cut by a disconnect", lostAnswer(canceled, context.Canceled), true},
		{"cluster temporarily unavailable", apiErr(server.JSClusterNotAvailErr), true},
		{"a resent message id still in process", apiErr(server.JSStreamDuplicateMessageConflict), true},
		{"stream offline", apiErr(server.JSStreamOfflineErr), true},

		{"wrong expected sequence", apiErr(server.JSStreamWrongLastSequenceErrF), false},
		{"stream not found", jetstream.ErrStreamNotFound, false},
		{"no stream captures the subject (confirmed)", fmt.Errorf("%w %q: %w", ErrNoStream, "x", jetstream.ErrNoStreamResponse), false},
		{"permission violation", fmt.Errorf("%w for publish to %q", nats.ErrPermissionViolation, "out.x"), false},
		{"max payload", nats.ErrMaxPayload, false},
		{"cancelled by the caller", context.Canceled, false},
		{"jetstream not enabled", jetstream.ErrJetStreamNotEnabled, false},
		{"sequence gap", ErrSequenceGap, false},
		{"disk full", errors.New("write manifest: no space left on device"), false},
	} {
		if got := IsOutage(tc.err); got != tc.want {
			t.Errorf("%s: IsOutage(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}
