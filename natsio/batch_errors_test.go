package natsio

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func TestAPIBatchError(t *testing.T) {
	target := batchTarget{id: "b-3", subject: "out.x", stream: "OUT"}
	tests := []struct {
		code     jetstream.ErrorCode
		sentinel error
		hint     string
	}{
		{codeBatchDisabled, ErrAtomicPublishDisabled, "allow_atomic"},
		{codeBatchTooLarge, ErrBatchTooLarge, "max_msgs"},
		{codeBatchIncomplete, ErrBatchRejected, "commit it again"},
		{codeBatchInflight, ErrBatchRejected, "later"},
		{codeDuplicateInFlux, ErrBatchRejected, "later"},
		{codeBatchHeader, ErrBatchRejected, "header"},
		{10166, ErrBatchRejected, "stored none"}, // e.g. a TTL on a stream without TTLs
	}
	for _, tt := range tests {
		apiErr := &jetstream.APIError{Code: 400, ErrorCode: tt.code, Description: "desc"}
		err := apiBatchError(target, apiErr)
		var got *jetstream.APIError
		if !errors.Is(err, tt.sentinel) || !errors.As(err, &got) || got.ErrorCode != tt.code {
			t.Errorf("code %d: %v, want %v wrapping the API error", tt.code, err, tt.sentinel)
		}
		for _, want := range []string{"b-3", "OUT", "out.x", tt.hint} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("code %d: %q does not mention %q", tt.code, err, want)
			}
		}
	}
}

func TestRequestBatchError(t *testing.T) {
	target := batchTarget{id: "b", subject: "out.x"}
	tests := []struct {
		err        error
		sentCommit bool
		sentinel   error
		hint       string
	}{
		{nats.ErrNoResponders, true, ErrNoStream, "declare a stream"},
		{context.DeadlineExceeded, false, ErrBatchUnacknowledged, "nothing was committed"},
		{nats.ErrConnectionClosed, true, ErrBatchUnacknowledged, "may or may not be stored"},
	}
	for _, tt := range tests {
		err := requestBatchError(target, tt.err, tt.sentCommit)
		if !errors.Is(err, tt.sentinel) || !errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.hint) {
			t.Errorf("requestBatchError(%v, %v) = %v, want %v saying %q", tt.err, tt.sentCommit, err, tt.sentinel, tt.hint)
		}
	}
}
