package config

import (
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/wasmstream/wasmstream/internal/protocol"
)

// defaultCheckpoint is the checkpoint configuration of a file without a checkpoint block.
func defaultCheckpoint() Checkpoint {
	return Checkpoint{
		Interval: DefaultCheckpointInterval,
		Timeout:  DefaultCheckpointTimeout,
		Mode:     DefaultCheckpointMode,
		Retain:   DefaultCheckpointRetain,
	}
}

// decodeCheckpoint reads the checkpoint block; an attribute left out keeps its default.
func (d *decoder) decodeCheckpoint(b *hcl.Block) Checkpoint {
	a, _ := d.body(b, checkpointSchema, "checkpoint")
	c := Checkpoint{
		Interval: checkpointInterval(a),
		Timeout:  checkpointTimeout(a),
		Mode:     checkpointMode(a),
		Retain:   int(a.integer("retain", 1, maxCheckpointRetain, DefaultCheckpointRetain)),
		Range:    b.DefRange,
	}
	c.MinPause, _ = a.nonNegativeDuration("min_pause", 0, `write "0s" for no pause between checkpoints`)
	var st state
	c.AlignmentTimeout, st = a.nonNegativeDuration("alignment_timeout", 0, `write "0s" to never switch to unaligned`)
	if st == present {
		checkAlignmentTimeout(a, &c)
	}
	return c
}

// checkpointMode reads the mode; a word other than aligned or unaligned is
// an error of the attribute (the enum check names both).
func checkpointMode(a *attrs) protocol.Mode {
	word := a.enum("mode", DefaultCheckpointMode.String(), protocol.Aligned.String(), protocol.Unaligned.String())
	m, err := protocol.ParseMode(word)
	if err != nil {
		return DefaultCheckpointMode // the enum check reported it
	}
	return m
}

// checkpointInterval reads the interval. Zero is allowed (checkpoints only on demand and at
// stop); a tiny positive interval is refused because the pipeline would do little else.
func checkpointInterval(a *attrs) time.Duration {
	const zero = `write "0s" to checkpoint only on demand and at stop`
	d, s, st := a.durationText("interval")
	switch {
	case st != present:
		return DefaultCheckpointInterval
	case d < 0:
		a.errorf("interval", "must not be negative, got %q; %s", s, zero)
	case d > 0 && d < minCheckpointInterval:
		a.errorf("interval", "%q is too small: the pipeline would spend its time checkpointing; use at least %q, or %s",
			s, minCheckpointInterval.String(), zero)
	default:
		return d
	}
	a.fail("interval")
	return DefaultCheckpointInterval
}

// checkpointTimeout reads the timeout, which must be positive: a checkpoint that may never be
// aborted would block every later one behind it.
func checkpointTimeout(a *attrs) time.Duration {
	d, s, st := a.durationText("timeout")
	switch {
	case st != present:
		return DefaultCheckpointTimeout
	case d <= 0:
		a.errorf("timeout", `must be positive, got %q; it is how long a checkpoint may take before it is aborted, e.g. "10m"`, s)
		a.fail("timeout")
		return DefaultCheckpointTimeout
	}
	return d
}

// checkAlignmentTimeout warns about an alignment timeout that cannot act. With mode unaligned it
// is dropped, so that the effective config shows what is used.
func checkAlignmentTimeout(a *attrs, c *Checkpoint) {
	switch {
	case c.Mode == protocol.Unaligned:
		a.warnf("alignment_timeout", `has no effect with mode "unaligned", which never waits for barriers to align; remove it`)
		c.AlignmentTimeout = 0
	case c.AlignmentTimeout > 0 && c.AlignmentTimeout >= c.Timeout && !a.failed["timeout"]:
		a.warnf("alignment_timeout", "%s is not shorter than timeout %s, so a checkpoint is aborted before it could switch to unaligned; make it shorter than timeout",
			c.AlignmentTimeout, c.Timeout)
	}
}
