package engine

import (
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/hcl/v2"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/protocol"
)

// Options tune a run. Zero fields take the defaults.
type Options struct {
	Logger hclog.Logger
	// Engine is wazero's engine: compiler (default) or interpreter.
	Engine host.Engine
	// Checkpoint configures the checkpoint coordinator; zero fields take the
	// pipeline config's checkpoint block, then the defaults.
	Checkpoint CheckpointOptions
	// Recovery says where a run starts from.
	Recovery RecoveryOptions
	// NoExchangeShortcut makes the consumers of exchange edges read every record back from the
	// stream, even in one process, where they otherwise take the records the pipeline's sink
	// just stored from memory (exchange_shortcut.go): for comparisons and tests.
	NoExchangeShortcut bool
	// StopWhenIdle ends the run after no source delivered anything for this
	// long and the server holds nothing more for any source (idle.go); 0 =
	// run until the context ends. Input left unread makes Run fail with
	// ErrInputPending.
	StopWhenIdle time.Duration
	// FetchBatch is the most records a source fetches at once (default 1024).
	FetchBatch int
	// ProgressInterval is how often progress is logged (default 10s).
	ProgressInterval time.Duration
	// OnUpgrade, when set, is told the outcome of every upgrade Serve
	// carries out (for monitoring, tests and benchmarks).
	OnUpgrade func(UpgradeOutcome)
	// Clock is processing time: the guests' processing_time and the clock of
	// processing-time state TTLs. Default time.Now; tests inject a fake one.
	Clock func() time.Time
	// FS is the filesystem of the live state and of checkpoint writes
	// (default the OS): the seam where tests inject a full disk or a
	// failing fsync (pebble/vfs/errorfs).
	FS vfs.FS
	// Cluster, when set, runs the pipeline as one worker's part of a
	// cluster pipeline (ClusterPart).
	Cluster *ClusterPart
	// Observer, when set, serves the metrics and health of every pipeline
	// opened with these options (StartObserver).
	Observer *Observer
}

// CheckpointOptions configure checkpoints.
type CheckpointOptions struct {
	// Interval between checkpoint triggers (default 5s). Negative: only on
	// demand and at a graceful stop.
	Interval time.Duration
	// Timeout aborts a checkpoint that has not completed (default 10m).
	Timeout time.Duration
	// MinPause is the least time from one checkpoint's end to the next trigger.
	MinPause time.Duration
	// Mode is aligned (default) or unaligned barrier handling at tasks with
	// several inputs.
	Mode protocol.Mode
	// ModeSet says Mode was chosen explicitly (Aligned is the zero value).
	ModeSet bool
	// AlignmentTimeout switches an aligned checkpoint to unaligned on a task
	// that waited this long for its other barriers (0 = never).
	AlignmentTimeout time.Duration
	// Retain is how many completed checkpoints are kept (default 3).
	Retain int
	// Clock times triggers, checkpoint timeouts and alignment (default
	// the wall clock). Processing time for guests is Options.Clock.
	Clock protocol.Clock
}

// RecoveryOptions choose the checkpoint a run restores.
type RecoveryOptions struct {
	// FromCheckpoint restores this retained checkpoint instead of the newest.
	FromCheckpoint uint64
	// EmptyState starts from empty state and the configured source starts
	// even though checkpoints exist (they are kept).
	EmptyState bool
	// AllowOperatorChange restores state written by another module version
	// of an operator.
	AllowOperatorChange bool
	// AcceptGaps resumes a source past records that are gone before they
	// were processed: purged or expired past the checkpoint's position, or
	// removed after it (deleted, purged by subject, a per-subject limit).
	// The run logs what it skips; it accepts the gaps up to each stream's
	// last sequence when it starts, and a gap that appears later still
	// stops it. Without it such a restore is refused (design invariant 2).
	AcceptGaps bool
	// FromSavepoint restores a savepoint (its name in the data dir, an
	// archive file, or "objectstore:NAME"): it becomes a retained checkpoint
	// of the data dir, which the run then restores like FromCheckpoint.
	FromSavepoint string
}

// withDefaults fills zero fields from the config's checkpoint block, then
// from the defaults.
func (o Options) withDefaults(cfg *config.Pipeline) Options {
	c := &o.Checkpoint
	cc := cfg.Checkpoint
	if c.Interval == 0 {
		c.Interval = cc.Interval
		if cc.Interval == 0 && cc.Range != (hcl.Range{}) {
			c.Interval = -1 // the block asked for on-demand checkpoints only
		}
	}
	if c.Timeout == 0 {
		c.Timeout = cc.Timeout
	}
	if c.MinPause == 0 {
		c.MinPause = cc.MinPause
	}
	if c.AlignmentTimeout == 0 {
		c.AlignmentTimeout = cc.AlignmentTimeout
	}
	if c.Retain == 0 {
		c.Retain = cc.Retain
	}
	if !c.ModeSet {
		c.Mode = cc.Mode
	}
	if o.Cluster != nil {
		c.Interval = -1 // the cluster coordinator triggers (TriggerID)
		o.StopWhenIdle = 0
	}
	return o.withBuiltinDefaults()
}

func (o Options) withBuiltinDefaults() Options {
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	if o.FS == nil {
		o.FS = vfs.Default
	}
	if o.FetchBatch <= 0 {
		o.FetchBatch = 1024
	}
	if o.ProgressInterval <= 0 {
		o.ProgressInterval = 10 * time.Second
	}
	c := &o.Checkpoint
	if c.Interval == 0 {
		c.Interval = config.DefaultCheckpointInterval
	}
	if c.Timeout <= 0 {
		c.Timeout = config.DefaultCheckpointTimeout
	}
	if c.Retain <= 0 {
		c.Retain = config.DefaultCheckpointRetain
	}
	if c.Clock == nil {
		c.Clock = wallClock{}
	}
	return o
}

// wallClock is the protocol's clock in production.
type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }
