package lease

import (
	"errors"

	"github.com/nats-io/nats.go/jetstream"
)

// Sentinel errors, wrapped with %w by every function of the package.
var (
	// ErrHeld: Acquire found the lease held by another holder; the message
	// names it. Retry after its TTL, or watch the key for its expiry.
	ErrHeld = errors.New("lease held by another holder")
	// ErrLost: the lease expired or changed hands; the holder must stop
	// acting as such and may Acquire again. A Lease stays lost.
	ErrLost = errors.New("lease lost")
	// ErrNotFound: no message is stored on the subject.
	ErrNotFound = errors.New("no message on subject")
	// ErrBucketConfig: the bucket exists with settings a lease cannot use.
	ErrBucketConfig = errors.New("lease bucket has the wrong configuration")
	// ErrInvalid: an argument the package cannot use (a TTL, a subject).
	ErrInvalid = errors.New("invalid lease argument")
)

// refused reports whether err is the server's refusal of a conditional
// write: 10071 "wrong last sequence: N" when the last sequence differs,
// 10164 "wrong last sequence" when a conditional write on the same subject
// is still in flight (nats-server jetstream_batching.go).
func refused(err error) bool {
	var apiErr *jetstream.APIError
	if !errors.As(err, &apiErr) {
		return false
	}
	return apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant
}
