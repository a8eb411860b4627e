package exchange

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// ErrInvalidEventTime is the cause of the errors DecodeEventTime returns.
var ErrInvalidEventTime = errors.New("exchange: invalid event time header")

// EncodeEventTime is the value of HeaderEventTime for t: Unix nanoseconds in decimal.
func EncodeEventTime(t time.Time) string { return strconv.FormatInt(t.UnixNano(), 10) }

// DecodeEventTime reads a HeaderEventTime value.
func DecodeEventTime(s string) (time.Time, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || strconv.FormatInt(n, 10) != s {
		return time.Time{}, fmt.Errorf("%w: %q is not Unix nanoseconds in decimal", ErrInvalidEventTime, s)
	}
	return time.Unix(0, n).UTC(), nil
}

// StreamSpec is the shape of an edge's stream (FORMAT.md §2): it captures StreamSubject,
// keeps messages under limits retention until the engine trims what no retained checkpoint
// needs, and remembers record ids for DuplicateWindow.
type StreamSpec struct {
	Edge Edge
	// DuplicateWindow is how long the stream remembers Nats-Msg-Id values. It must cover a
	// producer's replay: the time from the oldest retained checkpoint's barrier to the end of a
	// recovery. Positive: the server's default (2m) is not assumed to be enough.
	DuplicateWindow time.Duration
	// Replicas is how many servers keep the stream, 1 to 5.
	Replicas int
	// Memory keeps the stream in memory instead of files; for tests and throwaway pipelines.
	Memory bool
}

// Validate reports a spec that cannot be created.
func (s StreamSpec) Validate() error {
	if err := s.Edge.Validate(); err != nil {
		return err
	}
	switch {
	case s.DuplicateWindow <= 0:
		return fmt.Errorf("%w: %s: duplicate window %s; it must be positive and cover a replay", ErrInvalidEdge, s.Edge, s.DuplicateWindow)
	case s.Replicas < 1 || s.Replicas > 5:
		return fmt.Errorf("%w: %s: replicas %d must be 1 to 5", ErrInvalidEdge, s.Edge, s.Replicas)
	}
	return nil
}
