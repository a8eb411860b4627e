package natsio

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// EnsureAtomicStream is EnsureStream for the stream of a transactional
// sink: a stream it creates allows atomic batch publish (allow_atomic). An
// existing stream must already allow it, besides matching s as
// EnsureStream requires; it is never changed here (EnableAtomicPublish is
// the explicit way).
func (c *Conn) EnsureAtomicStream(ctx context.Context, s StreamSpec) (*jetstream.StreamInfo, error) {
	s.AllowAtomic = true
	return c.EnsureStream(ctx, s)
}

// EnableAtomicPublish turns allow_atomic on for an existing stream, leaving
// the rest of its configuration alone. It is the user's explicit choice
// (a CLI command), never done implicitly: the stream may belong to others.
// The server refuses it for mirrors and for streams in async persist mode.
func (c *Conn) EnableAtomicPublish(ctx context.Context, stream string) (*jetstream.StreamInfo, error) {
	st, err := c.JS.Stream(ctx, stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, fmt.Errorf("%w: stream %s does not exist", ErrStreamNotFound, stream)
	}
	if err != nil {
		return nil, fmt.Errorf("natsio: stream %s: %w", stream, err)
	}
	cfg := st.CachedInfo().Config
	if cfg.AllowAtomicPublish {
		return st.CachedInfo(), nil
	}
	cfg.AllowAtomicPublish = true
	st, err = c.JS.UpdateStream(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("natsio: enabling atomic batch publish on stream %s: %w", stream, err)
	}
	return st.CachedInfo(), nil
}
