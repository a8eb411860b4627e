package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/clusterckpt"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// errVerifyFailed: at least one checkpoint failed verification. The details
// were already printed, one checkpoint each.
var errVerifyFailed = errors.New("checkpoint verification failed")

// checkpointsCmdFlags are the flags every checkpoints subcommand shares: where
// the checkpoints are (a pipeline file argument or --data-dir) and the
// output form.
type checkpointsCmdFlags struct {
	dataDir string
	json    bool
}

func newCheckpointsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "checkpoints",
		Short: "List, inspect, verify and trigger a pipeline's checkpoints",
		Long: `list, inspect and verify read the checkpoints a pipeline wrote under
<data_dir>/checkpoints, without running the pipeline or connecting to NATS: give the
pipeline file (its data_dir is used) or --data-dir DIR. trigger asks the running
pipeline for a checkpoint now. Every subcommand prints JSON with --json.

The pipeline file decides which checkpoints are meant: a file with a cluster block
(a pipeline run by "wasmstream worker") names the cluster's checkpoints, which list,
inspect and verify read from its NATS at server.url: the completion records in the
control bucket (KV wasmstream-<pipeline>, read through the stream leader) and the
manifests and state in the Object Store wasmstream-<pipeline>-state; the buckets
are only read. --data-dir always means the data dir's own checkpoints. trigger asks a
single-process pipeline only: the workers' coordinator checkpoints on its interval.`,
		Example: `  wasmstream checkpoints list examples/payment-risk/pipeline.hcl
  wasmstream checkpoints inspect examples/payment-risk/pipeline.hcl 42 --files
  wasmstream checkpoints verify --data-dir /var/lib/payment-risk
  wasmstream checkpoints trigger examples/payment-risk/pipeline.hcl
  wasmstream checkpoints verify cluster-pipeline.hcl --all`,
		// A parent without RunE prints its help and exits 0 for a mistyped
		// subcommand; a script must see the mistake.
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return fmt.Errorf("%s: unknown command %q; use list, inspect, verify or trigger (see %s --help)",
				cmd.CommandPath(), args[0], cmd.CommandPath())
		},
	}
	cmd.AddCommand(newCheckpointsListCommand(), newCheckpointsInspectCommand(), newCheckpointsVerifyCommand(), newCheckpointsTriggerCommand())
	return cmd
}

// addFlags registers the shared flags on a subcommand.
func (f *checkpointsCmdFlags) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.dataDir, "data-dir", "", "the pipeline's data directory, instead of the pipeline file")
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON instead of text")
}

// args returns a cobra argument check: the pipeline file unless --data-dir
// is set, then between least and most further arguments, described by what
// (empty when there are none).
func (f *checkpointsCmdFlags) args(least, most int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		n := len(args)
		if f.dataDir == "" {
			if n == 0 {
				return fmt.Errorf("%s: give the pipeline file or --data-dir DIR; usage: %s", cmd.CommandPath(), cmd.UseLine())
			}
			n--
		}
		switch {
		case n < least:
			return fmt.Errorf("%s: give %s; usage: %s", cmd.CommandPath(), what, cmd.UseLine())
		case n > most && f.dataDir != "":
			return fmt.Errorf("%s: too many arguments: with --data-dir, give %sno pipeline file; usage: %s", cmd.CommandPath(), withAnd(what), cmd.UseLine())
		case n > most:
			return fmt.Errorf("%s: too many arguments: give the pipeline file%s; usage: %s", cmd.CommandPath(), andWhat(what), cmd.UseLine())
		}
		return nil
	}
}

func withAnd(what string) string {
	if what == "" {
		return ""
	}
	return what + " and "
}

func andWhat(what string) string {
	if what == "" {
		return " only"
	}
	return " and " + what
}

// checkpointsTarget is where a subcommand reads checkpoints: the data
// dir's checkpoint root, or, for a pipeline file with a cluster block, the
// cluster's control bucket and Object Store on its NATS.
type checkpointsTarget struct {
	root string
	// cfg is the pipeline file's; nil with --data-dir.
	cfg *config.Pipeline
}

// cluster reports whether the checkpoints are a cluster pipeline's.
func (t checkpointsTarget) cluster() bool { return t.cfg != nil && clusterckpt.IsCluster(t.cfg) }

// target returns where the checkpoints are and the arguments after the
// pipeline file. --data-dir always means the data dir's own checkpoints.
func (f *checkpointsCmdFlags) target(cmd *cobra.Command, args []string) (checkpointsTarget, []string, error) {
	if f.dataDir != "" {
		// Absolute, like a pipeline's data_dir, so messages name the same
		// directory whichever form was used.
		dir, err := filepath.Abs(f.dataDir)
		if err != nil {
			return checkpointsTarget{}, nil, fmt.Errorf("--data-dir %q: %w", f.dataDir, err)
		}
		return checkpointsTarget{root: engine.CheckpointRootIn(dir)}, args, nil
	}
	cfg, err := loadConfig(args[0], cmd.ErrOrStderr())
	if err != nil {
		return checkpointsTarget{}, nil, err
	}
	return checkpointsTarget{root: engine.CheckpointRoot(cfg), cfg: cfg}, args[1:], nil
}

// parseCheckpointID reads a checkpoint id as `checkpoints list` prints it.
func parseCheckpointID(s string) (uint64, error) {
	id, err := strconv.ParseUint(s, 10, 64)
	if err != nil || id == 0 {
		return 0, fmt.Errorf("checkpoint id %q: must be a positive integer as `wasmstream checkpoints list` shows it", s)
	}
	return id, nil
}

// explainNotFound adds the ids that do exist to a not-found error, so the
// user can pick one without another command.
func explainNotFound(root string, id uint64, err error) error {
	if !errors.Is(err, checkpoint.ErrCheckpointNotFound) {
		return err
	}
	ids, lerr := checkpoint.List(root)
	switch {
	case lerr != nil:
		return fmt.Errorf("%w; listing %s failed too: %v", err, root, lerr)
	case len(ids) == 0:
		return fmt.Errorf("%w; %s holds no checkpoints", err, root)
	}
	return fmt.Errorf("%w; checkpoints in %s: %s", err, root, joinIDs(ids))
}

// joinIDs formats ids as "3, 2, 1".
func joinIDs(ids []uint64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatUint(id, 10)
	}
	return strings.Join(s, ", ")
}
