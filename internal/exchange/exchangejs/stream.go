package exchangejs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmstream/wasmstream/internal/exchange"
	"github.com/wasmstream/wasmstream/natsio"
)

// ErrLimitedStream is the cause of EnsureExchange's error for an existing stream that would
// drop messages by itself (an age, size or count limit): a restore could then find the exchange
// positions of a retained checkpoint gone.
var ErrLimitedStream = errors.New("exchangejs: exchange stream has limits that drop messages")

// EnsureExchange creates the stream of an edge when it is missing, and checks an existing one:
// it must capture the edge's subjects, keep messages under limits retention with no age, size or
// count limit, and remember ids at least for the spec's duplicate window (FORMAT.md §2). It never
// changes an existing stream.
func EnsureExchange(ctx context.Context, c *natsio.Conn, s exchange.StreamSpec) (*jetstream.StreamInfo, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	info, err := c.EnsureStream(ctx, streamSpec(s))
	if err != nil {
		return nil, fmt.Errorf("exchange %s: %w", s.Edge, err)
	}
	if limits := dropLimits(info.Config); len(limits) > 0 {
		return nil, fmt.Errorf("%w: exchange %s: stream %s has %s; remove the limits (nats stream edit %s), the engine trims the stream itself",
			ErrLimitedStream, s.Edge, info.Config.Name, strings.Join(limits, ", "), info.Config.Name)
	}
	return info, nil
}

// streamSpec is the natsio spec of an exchange stream.
func streamSpec(s exchange.StreamSpec) natsio.StreamSpec {
	storage := natsio.StorageFile
	if s.Memory {
		storage = natsio.StorageMemory
	}
	return natsio.StreamSpec{
		Name:            s.Edge.StreamName(),
		Subjects:        []string{s.Edge.StreamSubject()},
		DuplicateWindow: s.DuplicateWindow,
		Storage:         storage,
		Retention:       natsio.RetentionLimits,
		Replicas:        s.Replicas,
	}
}

// dropLimits lists the limits of a stream config under which the server drops messages.
func dropLimits(c jetstream.StreamConfig) []string {
	var out []string
	if c.MaxAge > 0 {
		out = append(out, fmt.Sprintf("max age %s", c.MaxAge))
	}
	if c.MaxMsgs > 0 {
		out = append(out, fmt.Sprintf("max messages %d", c.MaxMsgs))
	}
	if c.MaxBytes > 0 {
		out = append(out, fmt.Sprintf("max bytes %d", c.MaxBytes))
	}
	if c.MaxMsgsPerSubject > 0 {
		out = append(out, fmt.Sprintf("max messages per subject %d", c.MaxMsgsPerSubject))
	}
	return out
}

// Trim removes the messages of an edge's stream below sequence below: those that no retained
// checkpoint's restore reads (FORMAT.md §2, "Trimming"). Trimming below 2 removes nothing.
func Trim(ctx context.Context, c *natsio.Conn, e exchange.Edge, below uint64) error {
	if below < 2 {
		return nil
	}
	st, err := c.JS.Stream(ctx, e.StreamName())
	if err != nil {
		return fmt.Errorf("exchangejs: trim exchange %s: %w", e, err)
	}
	if err := st.Purge(ctx, jetstream.WithPurgeSequence(below)); err != nil {
		return fmt.Errorf("exchangejs: trim exchange %s below sequence %d: %w", e, below, err)
	}
	return nil
}
