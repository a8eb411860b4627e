package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
)

func newValidateCommand(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "validate PIPELINE.hcl",
		Short: "Check a pipeline file and load and validate every operator module, without running",
		Long: `Validate parses the pipeline file (errors point at file:line:column), then compiles
every operator module and checks it against the ABI: that it is WebAssembly, imports
only what the host provides, exports the required functions and reports the ABI
version this host speaks. It then runs each module's ws_init once with its config (a
config the operator rejects fails validation) to learn the states the module declares,
and prints every state's effective time to live (from the config's state blocks or the
module's own declaration) with a warning for each TTL shorter than the
max_duplicate_delay of a source the operator reads, and for each idempotent or
transactional sink whose declared stream remembers message ids for less than the replay
horizon (checkpoint interval + 1m), and for each operator whose limits.max_value_bytes is
above the server's max_payload (an output that large could not be published). No state is
touched, and nothing connects to NATS except, with server.url set, one short connection
that reads the server's max_payload (validate says so when it cannot).`,
		Example: `  wasmstream validate examples/payment-risk/pipeline.hcl`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(args[0], cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			reports, err := engine.Validate(context.Background(), cfg)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "%s: pipeline %q is valid: %d source(s), %d operator(s), %d sink(s)\n",
				args[0], cfg.Name, len(cfg.Sources), len(cfg.Operators), len(cfg.Sinks))
			for _, r := range reports {
				fmt.Fprintf(out, "  operator %q: %s (%d bytes, sha256 %s, ABI v%d)\n", r.Operator, r.Module, r.Size, r.Hash[:16], r.ABIVersion)
				for _, line := range r.TTLs {
					fmt.Fprintf(out, "    state %s\n", line)
				}
			}
			for _, r := range reports {
				for _, w := range r.Warnings {
					fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", w)
				}
			}
			for _, w := range engine.SinkWarnings(cfg) {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", w)
			}
			printPayloadWarnings(context.Background(), cmd.ErrOrStderr(), cfg)
			return nil
		},
	}
}

// printPayloadWarnings prints the operators whose size limits exceed the
// server's max payload, or that the check could not be made.
func printPayloadWarnings(ctx context.Context, w io.Writer, cfg *config.Pipeline) {
	warnings, err := engine.PayloadWarnings(ctx, cfg)
	if err != nil {
		fmt.Fprintf(w, "warning: could not check the operators' limits.max_value_bytes against the server's max_payload: %v; run checks it when it connects\n", err)
		return
	}
	for _, pw := range warnings {
		fmt.Fprintf(w, "warning: %s\n", pw)
	}
}
