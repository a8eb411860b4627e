package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
)

type stopFlags struct {
	target  serviceTarget
	json    bool
	timeout time.Duration
}

func newStopCommand() *cobra.Command {
	f := &stopFlags{}
	cmd := &cobra.Command{
		Use:   "stop PIPELINE.hcl | stop NAME --server URL",
		Short: "Stop a pipeline that wasmstream run runs, gracefully: a final checkpoint, then its process exits 0",
		Long: `Stop asks a running pipeline (wasmstream run) through its NATS service to stop
exactly as SIGTERM stops it: the checkpoint in progress finishes, the sources inject a
final barrier, the final checkpoint completes, and the process exits 0. Stop waits for
the answer, which names the final checkpoint, and then until the pipeline's service is
gone, up to --timeout in all. Other pipelines on the same server keep running.

None running is exit code 7 (not_running). Cluster pipelines (wasmstream worker) are
stopped by stopping their workers.`,
		Example: `  wasmstream stop pipeline.hcl
  wasmstream stop payment-risk --server nats://127.0.0.1:4222
  wasmstream stop pipeline.hcl --timeout 5m --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runStop(cmd, f, args[0]) },
	}
	f.target.addFlags(cmd)
	addJSONFlag(cmd, &f.json, `{"pipeline", "stopped", "final_checkpoint"}`)
	cmd.Flags().DurationVar(&f.timeout, "timeout", 2*time.Minute, "how long to wait for the final checkpoint and the process to be gone")
	return cmd
}

// stopResult is what stop prints with --json.
type stopResult struct {
	Pipeline        string                   `json:"pipeline"`
	Stopped         bool                     `json:"stopped"`
	FinalCheckpoint *engine.CheckpointStatus `json:"final_checkpoint"`
}

func runStop(cmd *cobra.Command, f *stopFlags, arg string) error {
	cfg, err := stopTarget(cmd, f, arg)
	if err != nil {
		return err
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	reply, err := engine.StopRun(ctx, cfg, f.timeout)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if f.json {
		return writeJSON(out, stopResult{Pipeline: cfg.Name, Stopped: true, FinalCheckpoint: reply.FinalCheckpoint})
	}
	if c := reply.FinalCheckpoint; c != nil {
		fmt.Fprintf(out, "pipeline %s stopped: final checkpoint %d (took %s)\n", cfg.Name, c.ID,
			time.Duration(c.DurationMS*float64(time.Millisecond)).Round(time.Millisecond))
		return nil
	}
	fmt.Fprintf(out, "pipeline %s stopped (it completed no checkpoint)\n", cfg.Name)
	return nil
}

// stopTarget is the pipeline file arg, or with --server the pipeline
// named arg on that server.
func stopTarget(cmd *cobra.Command, f *stopFlags, arg string) (*config.Pipeline, error) {
	if f.target.server != "" {
		if err := f.target.check(false); err != nil {
			return nil, err
		}
		return f.target.serverOnly(arg), nil
	}
	if err := f.target.check(true); err != nil {
		return nil, err
	}
	cfg, err := loadConfig(arg, cmd.ErrOrStderr())
	if err != nil {
		return nil, err
	}
	if hasClusterBlock(cfg) {
		return nil, fmt.Errorf("%s has a cluster block: its pipeline runs on wasmstream workers, which stop with their process (SIGTERM); stop serves wasmstream run", arg)
	}
	return cfg, nil
}
