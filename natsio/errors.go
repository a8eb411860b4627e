package natsio

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error this package returns wraps one of these (or a
// nats.go error) with the object it concerns, so callers test with errors.Is
// and users read a message that says what to change.
var (
	// ErrInvalidOptions reports a ServerOptions value that cannot work.
	ErrInvalidOptions = errors.New("natsio: invalid server options")
	// ErrPortInUse reports that the embedded server cannot listen on its port.
	ErrPortInUse = errors.New("natsio: port in use")
	// ErrEmbeddedStart reports that the embedded server did not start.
	ErrEmbeddedStart = errors.New("natsio: embedded server did not start")
	// ErrConnect reports that no connection to the NATS server could be made.
	ErrConnect = errors.New("natsio: cannot connect to NATS")

	// ErrInvalidStreamSpec reports a StreamSpec or SourceSpec that cannot work.
	ErrInvalidStreamSpec = errors.New("natsio: invalid stream spec")
	// ErrStreamConflict reports an existing stream whose configuration does
	// not match what the pipeline declares. It is never changed silently.
	ErrStreamConflict = errors.New("natsio: existing stream conflicts with the declared one")
	// ErrStreamNotFound reports that a source stream does not exist.
	ErrStreamNotFound = errors.New("natsio: stream not found")
	// ErrSequenceGap reports messages a source would skip because they are
	// gone before it read them (purged, expired, deleted, or a new stream
	// under the same name).
	ErrSequenceGap = errors.New("natsio: stream position lost")
	// ErrStreamRecreated reports a source stream that is not the one the
	// position belongs to: it was deleted and created again under the same
	// name (its creation time differs), so its sequences say nothing about
	// the position. It wraps ErrSequenceGap.
	ErrStreamRecreated = fmt.Errorf("%w: stream deleted and created again", ErrSequenceGap)

	// ErrInvalidExtractor reports a KeyExtractor without exactly one method.
	ErrInvalidExtractor = errors.New("natsio: invalid key extractor")
	// ErrKeyMissing reports a record without the configured key.
	ErrKeyMissing = errors.New("natsio: record key missing")
	// ErrKeyInvalid reports a record whose payload or key cannot be read
	// (malformed JSON, a payload that is not an object, a key that is an
	// object or an array).
	ErrKeyInvalid = errors.New("natsio: record key invalid")
	// ErrKeyNotUTF8 reports a key that is not valid UTF-8: bytes that are
	// not UTF-8, or a JSON \u escape of a lone surrogate. It wraps
	// ErrKeyInvalid.
	ErrKeyNotUTF8 = fmt.Errorf("%w: key is not valid UTF-8", ErrKeyInvalid)

	// ErrSourceClosed is returned by Fetch after Close.
	ErrSourceClosed = errors.New("natsio: source closed")

	// ErrNoStream reports a publish to a subject that no stream covers.
	ErrNoStream = errors.New("natsio: no stream covers subject")
	// ErrPublish reports a publish that was not acknowledged by JetStream.
	ErrPublish = errors.New("natsio: publish failed")
	// ErrResendRefused reports publishes an outage failed that were not
	// sent again because SinkOptions.BeforeResend refused.
	ErrResendRefused = errors.New("natsio: not sent again after the outage")
	// ErrSinkClosed is returned by Publish and Flush after Close.
	ErrSinkClosed = errors.New("natsio: sink closed")

	// ErrBadLine reports an input line that PublishJSONLines cannot publish.
	ErrBadLine = errors.New("natsio: bad input line")
)
