package checkpoint

import (
	"errors"
	"fmt"
	"time"
)

// Mode selects how a task with several inputs takes its snapshot.
type Mode int

const (
	// Aligned holds each input after its barrier until the barrier arrived on
	// all inputs, so the snapshot needs no channel state.
	Aligned Mode = iota
	// Unaligned snapshots at the first barrier and logs the records still in
	// flight on the other inputs as channel state; alignment never stalls.
	Unaligned
)

// String returns the name used in configuration and test scripts.
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
	return 0, fmt.Errorf("%w: %q (use aligned or unaligned)", ErrInvalidConfig, s)
}

// Config configures an Aligner for one operator task.
type Config struct {
	// Inputs is the number of input channels of the task (at least 1).
	Inputs int
	// Mode is the alignment mode.
	Mode Mode
	// AlignmentTimeout switches an aligned checkpoint to unaligned once the
	// elapsed time reported to Tick exceeds it. Zero means never.
	AlignmentTimeout time.Duration
}

// String prints the configuration in the form the test scripts use.
func (c Config) String() string {
	return fmt.Sprintf("inputs=%d mode=%s timeout=%s", c.Inputs, c.Mode, c.AlignmentTimeout)
}

// ErrInvalidConfig marks a Config that NewAligner refuses.
var ErrInvalidConfig = errors.New("checkpoint: invalid aligner config")

func (c Config) validate() error {
	if c.Inputs < 1 {
		return fmt.Errorf("%w: inputs=%d, a task needs at least 1 input", ErrInvalidConfig, c.Inputs)
	}
	if c.Mode != Aligned && c.Mode != Unaligned {
		return fmt.Errorf("%w: mode %s (use aligned or unaligned)", ErrInvalidConfig, c.Mode)
	}
	if c.AlignmentTimeout < 0 {
		return fmt.Errorf("%w: negative alignment timeout %s (use 0 for none)", ErrInvalidConfig, c.AlignmentTimeout)
	}
	return nil
}
