package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/engine"
)

type runFlags struct {
	stopWhenIdle time.Duration
	engine       string
	fetchBatch   int
	checkpoint   checkpointFlags
	recovery     engine.RecoveryOptions
}

// checkpointFlags override the config's checkpoint block.
type checkpointFlags struct {
	interval, timeout, minPause, alignmentTimeout time.Duration
	mode                                          string
	retain                                        int
}

func newRunCommand(g *globalFlags) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run PIPELINE.hcl",
		Short: "Run a pipeline until interrupted (SIGINT, SIGTERM and SIGHUP stop it gracefully)",
		Long: `Run compiles every operator module, restores the newest completed checkpoint
(verifying every file's checksum), starts the embedded JetStream server when the
pipeline names no server, and processes records. A checkpoint - operator state and
source positions as one consistent cut - is taken every checkpoint interval (the
config's checkpoint block, or --checkpoint-interval), on demand
("wasmstream checkpoints trigger") and on a graceful stop. After a crash the next run
restores the newest checkpoint and replays from its positions.

A checkpoint that cannot be restored (corrupt or missing file, truncated manifest,
changed operator module, other ABI or state format, stream recreated, records
purged, expired or deleted after the position) stops the run with an error naming
the checkpoint and the cause: nothing is changed. Choose explicitly:
--from-checkpoint ID rolls back to an older retained checkpoint, --empty-state
starts over, --allow-operator-change accepts a new module, --accept-gaps resumes
without the records that are gone. A source stream deleted and created again while
the pipeline runs stops it too, before anything of the new stream is processed.

--stop-when-idle stops only when nothing is pending: no source delivered anything
for the given time and the server holds no more records for any of them. A source
that delivers nothing while records wait for it is stalled, not idle; the run keeps
going and, if the stall lasts, stops with an error. Input left unread at a stop is
always an error, never exit 0.`,
		Example: `  wasmstream run examples/payment-risk/pipeline.hcl
  wasmstream run pipeline.hcl --stop-when-idle 2s --log-format json
  wasmstream run pipeline.hcl --checkpoint-interval 1s --checkpoint-mode unaligned
  wasmstream run pipeline.hcl --from-checkpoint 41
  wasmstream run pipeline.hcl --from-savepoint before-upgrade`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runPipeline(cmd, g, f, args[0]) },
	}
	cmd.Flags().DurationVar(&f.stopWhenIdle, "stop-when-idle", 0,
		"stop once no input arrived for this long and the server holds nothing more for any source (0 = run until interrupted); "+
			"input left unread at the stop is an error")
	addCheckpointFlags(cmd, &f.checkpoint)
	cmd.Flags().Uint64Var(&f.recovery.FromCheckpoint, "from-checkpoint", 0, "restore this retained checkpoint instead of the newest (a rollback)")
	cmd.Flags().BoolVar(&f.recovery.EmptyState, "empty-state", false, "start from empty state and the configured source starts although checkpoints exist (they are kept)")
	cmd.Flags().BoolVar(&f.recovery.AllowOperatorChange, "allow-operator-change", false, "restore state written by another version of an operator module")
	cmd.Flags().BoolVar(&f.recovery.AcceptGaps, "accept-gaps", false,
		"resume sources past records that are gone before they were processed (purged, expired or deleted after the checkpoint's position); "+
			"the gaps found at the start are logged and skipped, later ones still stop the run")
	addSavepointFlag(cmd, &f.recovery)
	cmd.Flags().StringVar(&f.engine, "engine", string(host.EngineCompiler), "wazero engine: compiler or interpreter")
	cmd.Flags().IntVar(&f.fetchBatch, "fetch-batch", 1024, "most records a source fetches at once")
	return cmd
}

func runPipeline(cmd *cobra.Command, g *globalFlags, f *runFlags, path string) error {
	cfg, err := loadConfig(path, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	ckOpts, err := f.checkpoint.options()
	if err != nil {
		return err
	}
	logger := newLogger(g, cfg)
	info, _ := debug.ReadBuildInfo()
	engine.BuildVersion = buildVersion(version, info).Version // what its NATS service reports
	// SIGHUP (the terminal went away, or a supervisor's reload) stops as
	// gracefully as SIGINT and SIGTERM: a final checkpoint, exit 0.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// Started first: a taken port fails the run at once, and /readyz
	// answers "not ready" while the checkpoint is restored.
	obs, err := engine.StartObserver(cfg, logger)
	if err != nil {
		return err
	}
	defer obs.Close()
	return engine.Serve(ctx, cfg, engine.Options{
		Observer:     obs,
		Logger:       logger,
		Engine:       host.Engine(f.engine),
		Checkpoint:   ckOpts,
		Recovery:     f.recovery,
		StopWhenIdle: f.stopWhenIdle,
		FetchBatch:   f.fetchBatch,
	})
}
