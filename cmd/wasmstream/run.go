package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/engine"
	"github.com/wasmstream/wasmstream/host"
)

type runFlags struct {
	stopWhenIdle time.Duration
	syncInterval time.Duration
	engine       string
	fetchBatch   int
}

func newRunCommand(g *globalFlags) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run PIPELINE.hcl",
		Short: "Run a pipeline until interrupted (SIGINT/SIGTERM stop it gracefully)",
		Long: `Run compiles every operator module, opens the state in the data dir, starts the
embedded JetStream server when the pipeline names no server, and processes records.
State and source positions are committed together every --sync-interval and on a
graceful stop; a restart resumes after the last commit.`,
		Example: `  wasmstream run examples/payment-risk/pipeline.hcl
  wasmstream run pipeline.hcl --stop-when-idle 2s --log-format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runPipeline(cmd, g, f, args[0]) },
	}
	cmd.Flags().DurationVar(&f.stopWhenIdle, "stop-when-idle", 0, "stop after no input arrived for this long (0 = run until interrupted)")
	cmd.Flags().DurationVar(&f.syncInterval, "sync-interval", 5*time.Second, "how often state and source positions are committed together")
	cmd.Flags().StringVar(&f.engine, "engine", string(host.EngineCompiler), "wazero engine: compiler or interpreter")
	cmd.Flags().IntVar(&f.fetchBatch, "fetch-batch", 1024, "most records a source fetches at once")
	return cmd
}

func runPipeline(cmd *cobra.Command, g *globalFlags, f *runFlags, path string) error {
	cfg, err := loadConfig(path, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	logger := newLogger(g, cfg)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	p, err := engine.Open(ctx, cfg, engine.Options{
		Logger:       logger,
		Engine:       host.Engine(f.engine),
		SyncInterval: f.syncInterval,
		StopWhenIdle: f.stopWhenIdle,
		FetchBatch:   f.fetchBatch,
	})
	if err != nil {
		return err
	}
	defer p.Close()
	logger.Info("pipeline running", "pipeline", cfg.Name, "nats", p.ClientURL(), "data_dir", cfg.DataDir)
	return p.Run(ctx)
}
