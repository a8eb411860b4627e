package natsio

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// DuplicateWindow returns how long stream remembers Nats-Msg-Id values:
// the server fills in its default (2m) when the stream was created without
// one, so the value is the effective window. An idempotent or
// transactional sink is exactly-once only for replays that happen within
// it (design invariant 4).
func (c *Conn) DuplicateWindow(ctx context.Context, stream string) (time.Duration, error) {
	st, err := c.JS.Stream(ctx, stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return 0, fmt.Errorf("%w: stream %s does not exist", ErrStreamNotFound, stream)
	}
	if err != nil {
		return 0, fmt.Errorf("natsio: stream %s: %w", stream, err)
	}
	return st.CachedInfo().Config.Duplicates, nil
}

// DuplicateWindowWarning returns "" when window covers replay, the longest
// time between a message's first publish and its publish again after a
// crash (for a transactional sink: checkpoint interval + restart time +
// commit time). Otherwise it returns a warning that says what can happen
// and what to change, for the engine to log.
func DuplicateWindowWarning(stream string, window, replay time.Duration) string {
	if window >= replay {
		return ""
	}
	return fmt.Sprintf("stream %s remembers message ids for %s but a replay can come %s after the first publish: "+
		"outputs replayed later than %s are stored twice; raise the stream's duplicate window "+
		"(duplicate_window, nats stream edit %s --dupe-window) to at least %s, or shorten the checkpoint interval",
		stream, window, replay, window, stream, replay)
}
