package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/internal/cluster/clusterckpt"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/statequery"
)

// stateGetLive asks the running pipeline instead of a checkpoint: the task
// that owns the key answers from its write-back cache (docs/state-queries.md).
func stateGetLive(cmd *cobra.Command, f *stateGetFlags, args []string) error {
	if f.dataDir != "" || len(args) == 0 {
		return fmt.Errorf("%s: --live needs the pipeline file (its server), not --data-dir", cmd.CommandPath())
	}
	if f.checkpoint != 0 {
		return fmt.Errorf("%s: --live reads the running pipeline; drop --checkpoint %d, or drop --live to read that checkpoint", cmd.CommandPath(), f.checkpoint)
	}
	cfg, err := loadConfig(args[0], cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	if clusterckpt.IsCluster(cfg) {
		return fmt.Errorf("%s: %s is a cluster pipeline: its workers do not answer state queries yet; --live reads a single-process pipeline", cmd.CommandPath(), args[0])
	}
	req := statequery.Request{Operator: f.operator, Key: f.key, State: f.state}
	entries, task, err := engine.QueryState(cmd.Context(), cfg, req, f.timeout)
	if err != nil {
		return err
	}
	where := fmt.Sprintf("live: pipeline %q, operator %q task %d", cfg.Name, f.operator, task)
	return f.writeEntries(cmd.OutOrStdout(), 0, where, entries)
}

// defaultLiveTimeout is how long --live waits for the answer: a task
// answers between two batches, after the one it is in.
const defaultLiveTimeout = 30 * time.Second
