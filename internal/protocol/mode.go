package protocol

import (
	"errors"
	"fmt"
)

// Mode selects how a task with several inputs cuts its state at a barrier.
// It is the one mode type of the project: the config parser, the engine and
// the manifests all name it.
type Mode int

const (
	// Aligned holds each input after its barrier until the barrier arrived on
	// every input: the snapshot is exactly the records before the barriers.
	Aligned Mode = iota
	// Unaligned sends barriers ahead of queued records (overtaking) and
	// snapshots at the first one; each input's position in the snapshot is
	// how far the task had processed it, and the records not yet in it are
	// replayed from the stream on restore (skip tables drop the rest).
	Unaligned
)

// ErrInvalidConfig marks a configuration the protocol refuses.
var ErrInvalidConfig = errors.New("protocol: invalid configuration")

// String returns the name used in configuration, manifests and scripts.
func (m Mode) String() string {
	switch m {
	case Aligned:
		return "aligned"
	case Unaligned:
		return "unaligned"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode turns "aligned" or "unaligned" into a Mode.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "aligned":
		return Aligned, nil
	case "unaligned":
		return Unaligned, nil
	}
	return 0, fmt.Errorf("%w: mode %q (use aligned or unaligned)", ErrInvalidConfig, s)
}
