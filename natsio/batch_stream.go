package natsio

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// EnsureAtomicStream is EnsureStream for the stream of a transactional
// sink: a stream it creates allows atomic batch publish (allow_atomic). An
// existing stream must already allow it, besides matching s as
// EnsureStream requires; it is never changed here (EnableAtomicPublish is
// the explicit way).
func (c *Conn) EnsureAtomicStream(ctx context.Context, s StreamSpec) (*jetstream.StreamInfo, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	info, err := c.streamInfo(ctx, s.Name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		info, err = c.createAtomicStream(ctx, s)
		if !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			return info, err
		}
		info, err = c.streamInfo(ctx, s.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("natsio: stream %s: %w", s.Name, err)
	}
	if diffs := atomicStreamDiffs(s, info.Config); len(diffs) > 0 {
		return nil, fmt.Errorf("%w: stream %s already exists and %s; change the pipeline's declaration "+
			"or change the stream yourself (EnableAtomicPublish, nats stream edit / nats stream rm)", ErrStreamConflict, s.Name, strings.Join(diffs, "; "))
	}
	return info, nil
}

func atomicStreamDiffs(s StreamSpec, have jetstream.StreamConfig) []string {
	diffs := streamDiffs(s, have)
	if !have.AllowAtomicPublish {
		diffs = append(diffs, "it does not allow atomic batch publish (allow_atomic is false)")
	}
	return diffs
}

func (c *Conn) createAtomicStream(ctx context.Context, s StreamSpec) (*jetstream.StreamInfo, error) {
	cfg := s.config()
	cfg.AllowAtomicPublish = true
	st, err := c.JS.CreateStream(ctx, cfg)
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) && apiErr.ErrorCode == errCodeSubjectOverlap {
		return nil, fmt.Errorf("%w: cannot create stream %s: its subjects %v overlap another stream's; "+
			"declare that stream instead, or choose subjects no other stream has", ErrStreamConflict, s.Name, s.Subjects)
	}
	if err != nil {
		return nil, err
	}
	return st.CachedInfo(), nil
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
