package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/protocol"
)

func addCheckpointFlags(cmd *cobra.Command, f *checkpointFlags) {
	fl := cmd.Flags()
	fl.DurationVar(&f.interval, "checkpoint-interval", 0, "time between checkpoints (default: the config's checkpoint block, else 5s; a negative value: only on demand and at stop)")
	fl.DurationVar(&f.timeout, "checkpoint-timeout", 0, "abort a checkpoint not complete after this (default: config, else 10m)")
	fl.DurationVar(&f.minPause, "checkpoint-min-pause", 0, "least time between the end of a checkpoint and the next trigger")
	fl.StringVar(&f.mode, "checkpoint-mode", "", "aligned or unaligned barriers at operators with several inputs (default: config, else aligned); an input that is another operator's output cuts at the first barrier marker (aligned) or at once (unaligned)")
	fl.DurationVar(&f.alignmentTimeout, "alignment-timeout", 0, "switch an aligned checkpoint to unaligned after waiting this long for barriers (0: config, else never)")
	fl.IntVar(&f.retain, "checkpoint-retain", 0, "completed checkpoints kept (default: config, else 3)")
}

// options turns the flags into engine options; zero fields defer to the config.
func (f checkpointFlags) options() (engine.CheckpointOptions, error) {
	o := engine.CheckpointOptions{Interval: f.interval, Timeout: f.timeout, MinPause: f.minPause,
		AlignmentTimeout: f.alignmentTimeout, Retain: f.retain}
	if f.mode != "" {
		m, err := protocol.ParseMode(f.mode)
		if err != nil {
			return o, fmt.Errorf("--checkpoint-mode: %w", err)
		}
		o.Mode, o.ModeSet = m, true
	}
	if f.timeout < 0 || f.minPause < 0 || f.alignmentTimeout < 0 || f.retain < 0 {
		return o, fmt.Errorf("checkpoint flags must not be negative (only --checkpoint-interval may be, meaning on demand only)")
	}
	if f.interval > 0 && f.interval < 10*time.Millisecond {
		return o, fmt.Errorf("--checkpoint-interval %s is too short; use at least 10ms", f.interval)
	}
	return o, nil
}

// addSavepointFlag registers --from-savepoint on the run command: the
// savepoint becomes a retained checkpoint of the data dir (engine
// importFromSavepoint), which the run then restores.
func addSavepointFlag(cmd *cobra.Command, r *engine.RecoveryOptions) {
	cmd.Flags().StringVar(&r.FromSavepoint, "from-savepoint", "",
		"restore a savepoint: its NAME in the data dir, an archive FILE (savepoint export), or objectstore:NAME")
}
