package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/internal/engine"
)

func newCheckpointsTriggerCommand() *cobra.Command {
	var asJSON bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "trigger PIPELINE.hcl",
		Short: "Ask the running pipeline for a checkpoint now and wait until it completes",
		Long: `Trigger asks the running pipeline of PIPELINE.hcl (over NATS: its server url, or its
embedded server on 127.0.0.1:<embedded_port>) for a checkpoint, and waits until the
checkpoint is complete on disk. If one is in progress, its completion answers. It prints
the checkpoint id and how long it took, or fails when no pipeline runs or the checkpoint
failed.

With --json: {"id", "duration_ns"} or {"error"}.`,
		Example: `  wasmstream checkpoints trigger examples/payment-risk/pipeline.hcl
  wasmstream checkpoints trigger pipeline.hcl --timeout 5m --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(args[0], cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			r, err := engine.TriggerCheckpoint(ctx, cfg, hclog.NewNullLogger(), timeout)
			if asJSON {
				if err != nil && r.Error == "" {
					r.Error = err.Error()
				}
				out, _ := json.Marshal(r)
				fmt.Fprintln(cmd.OutOrStdout(), string(out))
				return err
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "checkpoint %d completed in %s\n", r.ID, r.Duration.Round(time.Microsecond))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of text")
	cmd.Flags().DurationVar(&timeout, "timeout", 2*time.Minute, "how long to wait for the checkpoint")
	return cmd
}
