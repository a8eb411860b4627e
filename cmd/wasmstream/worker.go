package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/host"
	"github.com/wasmstream/wasmstream/internal/cluster/worker"
	"github.com/wasmstream/wasmstream/internal/engine"
)

type workerFlags struct {
	id         string
	engine     string
	fetchBatch int
}

func newWorkerCommand(g *globalFlags) *cobra.Command {
	f := &workerFlags{}
	cmd := &cobra.Command{
		Use:   "worker PIPELINE.hcl",
		Short: "Run one of several worker processes that share a pipeline through a NATS JetStream cluster",
		Long: `Worker joins the pipeline's workers on the NATS cluster the server block names
(server { url = "nats://a:4222,nats://b:4222,nats://c:4222" }) and runs the tasks the
coordinator gives it. One worker at a time holds the coordinator lease in the
pipeline's control bucket (KV wasmstream-<pipeline>); it assigns every task of every
operator to a live worker and runs the cluster checkpoints: each worker snapshots its
tasks at its own source positions, uploads them to the Object Store
(wasmstream-<pipeline>-state) content-addressed, and the coordinator commits the
checkpoint with a write the server refuses once its lease is gone.

Every worker reads every source and keeps the records of its own key groups
(sources must use limits retention). A worker asked to stop (SIGINT, SIGTERM, SIGHUP)
first hands its tasks over: the coordinator takes a handover checkpoint and the other
workers restore them from it; a second signal stops it at once. A worker that crashes
or cannot hand over (no other worker) takes no final checkpoint: its tasks move to the
other workers after cluster.worker_timeout and restore from the last cluster checkpoint. Each worker
needs a data dir of its own (data_dir in its pipeline file): it holds the live
state of its tasks and a cache of downloaded state, never the cluster's checkpoints.

The control bucket, the Object Store and the declared streams are created by the
first worker (cluster.replicas replicas). See docs/cluster.md.`,
		Example: `  wasmstream worker pipeline.hcl --id w1
  wasmstream worker pipeline.hcl --id w2 --log-format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runWorker(cmd, g, f, args[0]) },
	}
	cmd.Flags().StringVar(&f.id, "id", "", "this worker's id among the pipeline's workers: letters, digits, '-' or '_' (default: host name and process id)")
	cmd.Flags().StringVar(&f.engine, "engine", string(host.EngineCompiler), "wazero engine: compiler or interpreter")
	cmd.Flags().IntVar(&f.fetchBatch, "fetch-batch", 1024, "most records a source fetches at once")
	return cmd
}

func runWorker(cmd *cobra.Command, g *globalFlags, f *workerFlags, path string) error {
	// Signals are caught first: a worker stopped while it still loads its
	// pipeline (a supervisor's quick restart, a scale-down right after a
	// start) exits 0 as after a handover, not by the signal.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// The first signal starts the handover; a second one takes the
	// default action and ends the process at once.
	context.AfterFunc(ctx, stop)
	cfg, err := loadConfig(path, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	logger := newLogger(g, cfg)
	if ctx.Err() != nil {
		logger.Info("stopped before joining")
		return nil
	}
	// Every part of the pipeline this worker opens reports on the one endpoint.
	obs, err := engine.StartObserver(cfg, logger)
	if err != nil {
		return err
	}
	defer obs.Close()
	return worker.Run(ctx, worker.Options{Config: cfg, ID: f.id, Logger: logger,
		Engine: engine.Options{Logger: logger, Engine: host.Engine(f.engine), FetchBatch: f.fetchBatch, Observer: obs}})
}
