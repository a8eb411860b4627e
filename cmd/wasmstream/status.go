package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/internal/cluster/status"
	"github.com/wasmstream/wasmstream/internal/cluster/worker"
)

type statusFlags struct {
	json    bool
	watch   time.Duration
	listen  time.Duration
	timeout time.Duration
}

func newStatusCommand(g *globalFlags) *cobra.Command {
	f := &statusFlags{}
	cmd := &cobra.Command{
		Use:   "status PIPELINE.hcl",
		Short: "Show a running pipeline: its process or workers, throughput, lag, last checkpoint and dead letters",
		Long: `Status asks a pipeline run by wasmstream run (a pipeline file without a cluster
block) through its NATS service: its process (host, pid, version), state (running or
stopping), records read and their rate over the last ten seconds, each source's lag
(records pending on the server), the last checkpoint, dead letters, and each operator's
parallelism and module. None running is exit code 7 (not_running).

For a cluster pipeline (one with a cluster block, run by wasmstream worker) it reads the
NATS cluster: the worker holding the coordinator lease, the workers holding
membership leases and whether their heartbeats arrive, which worker runs each task,
the last completed cluster checkpoint, and per task how many records of each source
stream lie after its position in that checkpoint (the replay a failover would do).`,
		Example: `  wasmstream status pipeline.hcl
  wasmstream status pipeline.hcl --watch 2s
  wasmstream status pipeline.hcl --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runStatus(cmd, g, f, args[0]) },
	}
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON")
	cmd.Flags().DurationVar(&f.watch, "watch", 0, "read again every interval, like top, until interrupted")
	cmd.Flags().DurationVar(&f.listen, "listen", 1500*time.Millisecond, "how long to listen for the workers' heartbeats (a cluster pipeline)")
	cmd.Flags().DurationVar(&f.timeout, "timeout", 10*time.Second, "how long to wait for a running pipeline's answer (wasmstream run)")
	return cmd
}

func runStatus(cmd *cobra.Command, g *globalFlags, f *statusFlags, path string) error {
	cfg, err := loadConfig(path, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	if !hasClusterBlock(cfg) {
		return runRunStatus(cmd, f, cfg) // status_run.go
	}
	c, err := connectCluster(g, path, cfg, "")
	if err != nil {
		return err
	}
	defer c.close()
	ctx, cfg := c.ctx, c.cfg
	for {
		s, err := status.Read(ctx, c.conn.NC, c.conn.JS, cfg, worker.BucketName(cfg.Name), worker.ObjectStoreName(cfg.Name), f.listen)
		if err != nil {
			return err
		}
		out := cmd.OutOrStdout()
		switch {
		case f.json:
			enc := json.NewEncoder(out)
			enc.SetIndent("", "  ")
			if err := enc.Encode(s); err != nil {
				return err
			}
		default:
			if f.watch > 0 {
				fmt.Fprint(out, "\033[H\033[2J") // clear the terminal, as top does
			}
			status.Print(out, s)
		}
		if f.watch <= 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(f.watch):
		}
	}
}
