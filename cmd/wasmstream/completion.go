package main

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/clusterckpt"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// Shell completion: cobra's completion command (bash, zsh, fish,
// powershell) prints the script; the script asks the hidden __complete
// command, which calls the functions registered here. They read only local
// files (the pipeline file and its data dir), never NATS: a completion must
// answer at once, and a cluster's checkpoints are not completed.

// pipelineExt is what a pipeline file's name ends with.
const pipelineExt = "hcl"

// addCompletions registers the dynamic completions on the command tree:
// pipeline files for a PIPELINE.hcl argument or flag, checkpoint ids
// for checkpoints inspect and verify and for --from-checkpoint, and the
// pipeline's operators for --operator.
func addCompletions(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		addCommandCompletions(c)
	}
	walk(root)
}

func addCommandCompletions(c *cobra.Command) {
	if takesPipelineArg(c) && c.ValidArgsFunction == nil {
		c.ValidArgsFunction = completeArgs(checkpointIDArg(c))
	}
	if c.Flags().Lookup("operator") != nil {
		_ = c.RegisterFlagCompletionFunc("operator", completeOperators)
	}
	if c.Flags().Lookup("from-checkpoint") != nil {
		_ = c.RegisterFlagCompletionFunc("from-checkpoint", completeFromCheckpoint)
	}
	for _, name := range []string{"config", "pipeline"} {
		if pipelineFlag(c, name) {
			_ = c.MarkFlagFilename(name, pipelineExt)
		}
	}
}

// initCompletionCommand adds cobra's completion command to root, whose
// output must be set: the command keeps the writer it finds now. Given
// an unknown shell it fails with exit code 2, as an unknown subcommand of
// checkpoints does, rather than print its help and exit 0.
func initCompletionCommand(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" && c.RunE == nil {
			c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
			markCommand(c)
		}
	}
}

// takesPipelineArg reports whether c's first argument is a pipeline file,
// as its usage line shows it ("run PIPELINE.hcl", "list (PIPELINE.hcl |
// --data-dir DIR)", "pipelines [PIPELINE.hcl]").
func takesPipelineArg(c *cobra.Command) bool {
	fields := strings.Fields(c.Use)
	return len(fields) > 1 && strings.Contains(fields[1], "PIPELINE.hcl")
}

// pipelineFlag reports whether c's flag name takes a pipeline file, as its
// usage line shows it ("--config PIPELINE.hcl"); exec's --config is the
// guest's config, not a pipeline.
func pipelineFlag(c *cobra.Command, name string) bool {
	return c.Flags().Lookup(name) != nil && strings.Contains(c.Use, "--"+name+" PIPELINE.hcl")
}

// checkpointIDArg reports whether the argument after the pipeline file is
// a checkpoint id: checkpoints inspect and verify.
func checkpointIDArg(c *cobra.Command) bool {
	return c.HasParent() && c.Parent().Name() == "checkpoints" && (c.Name() == "inspect" || c.Name() == "verify")
}

// completeArgs completes the pipeline file, and with ids the checkpoint
// id after it. With --data-dir there is no pipeline file: the first
// argument is the id.
func completeArgs(ids bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		dataDir := flagValue(cmd, "data-dir")
		switch {
		case dataDir == "" && len(args) == 0:
			return []cobra.Completion{pipelineExt}, cobra.ShellCompDirectiveFilterFileExt
		case !ids:
			return nil, cobra.ShellCompDirectiveDefault
		case dataDir != "" && len(args) == 0:
			abs, err := filepath.Abs(dataDir)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return checkpointIDs(engine.CheckpointRootIn(abs)), idDirective
		case dataDir == "" && len(args) == 1:
			return pipelineCheckpointIDs(args[0]), idDirective
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeFromCheckpoint completes run --from-checkpoint with the ids in
// the data dir of the pipeline file given.
func completeFromCheckpoint(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) == 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return pipelineCheckpointIDs(args[0]), idDirective
}

// idDirective keeps checkpoint ids in their order, newest first, and
// offers no files.
const idDirective = cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder

// completeOperators completes --operator with the operators of the
// pipeline file: the first argument, or exec's --pipeline.
func completeOperators(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	path := flagValue(cmd, "pipeline")
	if path == "" && takesPipelineArg(cmd) && flagValue(cmd, "data-dir") == "" && len(args) > 0 {
		path = args[0]
	}
	cfg := completionConfig(path)
	if cfg == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	names := make([]cobra.Completion, 0, len(cfg.Operators))
	for _, o := range cfg.Operators {
		names = append(names, o.Name)
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}

// pipelineCheckpointIDs are the checkpoint ids in the data dir of the
// pipeline file path; none for a cluster pipeline, whose checkpoints are
// on its NATS.
func pipelineCheckpointIDs(path string) []cobra.Completion {
	cfg := completionConfig(path)
	if cfg == nil || clusterckpt.IsCluster(cfg) {
		return nil
	}
	return checkpointIDs(engine.CheckpointRoot(cfg))
}

// checkpointIDs lists the checkpoints under root, newest first.
func checkpointIDs(root string) []cobra.Completion {
	ids, err := checkpoint.List(root)
	if err != nil {
		return nil
	}
	out := make([]cobra.Completion, len(ids))
	for i, id := range ids {
		out[i] = strconv.FormatUint(id, 10)
	}
	return out
}

// completionConfig loads the pipeline file at path; nil when there is none
// or it does not load (a completion has nowhere to report why).
func completionConfig(path string) *config.Pipeline {
	if path == "" {
		return nil
	}
	cfg, _, err := config.Load(path)
	if err != nil {
		return nil
	}
	return cfg
}

// flagValue is the value of cmd's flag name, "" when it has none.
func flagValue(cmd *cobra.Command, name string) string {
	if f := cmd.Flags().Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}
