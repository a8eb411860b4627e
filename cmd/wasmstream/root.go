package main

import (
	"github.com/spf13/cobra"
)

// globalFlags apply to every command.
type globalFlags struct {
	logFormat string
	logLevel  string
}

func newRootCommand() *cobra.Command {
	g := &globalFlags{}
	root := &cobra.Command{
		Use:   "wasmstream",
		Short: "Stateful stream processing with WebAssembly operators on NATS JetStream",
		Long: `wasmstream runs pipelines whose operators are WebAssembly modules (Go, Rust, C,
AssemblyScript) with keyed state owned by the host and kept in Pebble. Records come
from NATS JetStream and results go back to it. Without a server URL in the pipeline
file, an embedded JetStream server runs in-process with its store in the data dir.`,
		Example: `  wasmstream validate examples/payment-risk/pipeline.hcl
  wasmstream publish --config examples/payment-risk/pipeline.hcl --subject payments.in --id-field event events.jsonl
  wasmstream run examples/payment-risk/pipeline.hcl --stop-when-idle 2s
  wasmstream read --config examples/payment-risk/pipeline.hcl --subject risk.totals`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&g.logFormat, "log-format", "", "log format: text or json (default: the pipeline's log block, else text)")
	root.PersistentFlags().StringVar(&g.logLevel, "log-level", "", "log level: trace, debug, info, warn, error (default: the pipeline's log block, else info)")
	root.AddCommand(newRunCommand(g), newWorkerCommand(g), newStatusCommand(g), newPipelinesCommand(), newStopCommand(), newScaleCommand(g), newValidateCommand(g), newPublishCommand(g), newReadCommand(g), newVersionCommand())
	root.AddCommand(newDeployCommand(g))
	root.AddCommand(newCheckpointsCommand())
	root.AddCommand(newStateCommand())
	root.AddCommand(newOperatorCommand(g))
	root.AddCommand(newSavepointCommand(g))
	root.AddCommand(newUpgradeCommand())
	root.AddCommand(newExecCommand(g))
	root.AddCommand(newInitCommand(), newBuildCommand())
	return root
}
