package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/internal/execrun"
)

func newExecCommand(g *globalFlags) *cobra.Command {
	var o execrun.Options
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "exec MODULE.wasm --input FILE (--key-field FIELD | --pipeline PIPELINE.hcl --operator NAME)",
		Short: "Run an operator module on a file of records, without NATS, and print its outputs, dead letters and final state",
		Long: `Exec runs one operator module on the records of a file (one JSON record per line,
blank lines skipped; --input - reads stdin) in this process, without NATS, and prints
what a pipeline would have published (outputs, and dead letters with their reasons) and
the operator's final state.

It is the pipeline's own machinery: the same key extraction, batches, failure policy
(a record the guest fails on becomes a dead letter and the rest of its batch runs
again), host-owned state in Pebble, TTLs and sandbox limits, so the results are those of
a pipeline run on the same records. With --pipeline the operator block NAME gives the
key block, the config, the limits, the state blocks (TTLs) and the outputs; MODULE.wasm
replaces its module, and --key-field and --config, when given, replace its key and
config. Without --pipeline, the host's default limits apply and the guest's outputs are
--outputs (default "out").

The state starts empty, or from --state-in DIR (a directory an earlier exec wrote
with --state-out; it is copied, not changed), and is kept in --state-out DIR (new or
empty; the same as --state-in continues in place) or else discarded.

Values print as text when they are valid UTF-8 without control characters (JSON as
is), else as hex up to 32 bytes, else as base64; an ENCODING column (with --json a
"*_encoding" field) says which. With --json every output, dead letter and state entry is
one JSON line with a "type" field, followed by a summary line.

A malformed input line, a module the host refuses, or a guest that fails outside any
record stops exec with an error naming the cause (the file and line for input) and a
non-zero exit; nothing is skipped silently. Exec logs errors only (the guest's among
them) unless --log-level asks for more. See docs/exec.md.`,
		Example: `  wasmstream exec examples/payment-risk/operator/risk.wasm --input examples/payment-risk/events.jsonl \
      --pipeline examples/payment-risk/pipeline.hcl --operator risk
  wasmstream exec risk.wasm --input events.jsonl --key-field account --config '{"max_cents":100000000}' --json
  wasmstream exec risk.wasm --input day1.jsonl --key-field account --state-out state1
  wasmstream exec risk.wasm --input day2.jsonl --key-field account --state-in state1 --state-out state2`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Module = args[0]
			o.ConfigSet = cmd.Flags().Changed("config")
			o.Stdin = cmd.InOrStdin()
			o.Logger = execLogger(g)
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			res, err := execrun.Run(ctx, o)
			if err != nil {
				return err
			}
			if asJSON {
				return execrun.WriteJSON(cmd.OutOrStdout(), res)
			}
			return execrun.WriteHuman(cmd.OutOrStdout(), res)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Input, "input", "", "file of records, one JSON record per line (- for stdin)")
	f.StringVar(&o.KeyField, "key-field", "", "JSON field (dotted path allowed) of the record key; with --pipeline it replaces the key block")
	f.StringVar(&o.Config, "config", "", "config handed to the guest's init, or @FILE to read it from FILE; with --pipeline it replaces the operator's config")
	f.StringSliceVar(&o.Outputs, "outputs", nil, `the guest's output names, without --pipeline (default "out")`)
	f.StringVar(&o.Pipeline, "pipeline", "", "pipeline file whose operator block --operator gives key, config, limits, state blocks and outputs")
	f.StringVar(&o.Operator, "operator", "", "the operator block of --pipeline to run; without --pipeline, the operator's name (default: the module's file name)")
	f.StringVar(&o.Subject, "subject", "", "subject the records arrive on, for a subject_token key (default: the input source's subject)")
	f.StringVar(&o.StateIn, "state-in", "", "start from the state an earlier exec kept with --state-out (copied, not changed)")
	f.StringVar(&o.StateOut, "state-out", "", "keep the final state in this new or empty directory (or the --state-in directory, to continue in place)")
	f.BoolVar(&asJSON, "json", false, "print JSON lines instead of tables")
	return cmd
}

// execLogger logs errors only unless --log-level says more: exec prints
// the dead letters itself, and --log-level debug shows the guest's logs.
func execLogger(g *globalFlags) hclog.Logger {
	level := orDefault(g.logLevel, "error")
	return hclog.New(&hclog.LoggerOptions{
		Name:       "wasmstream",
		Level:      hclog.LevelFromString(level),
		JSONFormat: g.logFormat == "json",
		Output:     os.Stderr,
	})
}
