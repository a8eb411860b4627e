package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
)

func newValidateCommand(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate PIPELINE.hcl",
		Short: "Check a pipeline file and load and validate every operator module, without running",
		Long: `Validate parses the pipeline file (errors point at file:line:column; a pipeline whose
operators read other operators' outputs is checked as a graph and the graph printed:
stages in topological order, edges with the consumer's key; run does not run such a
pipeline yet, and validate warns so), then compiles
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
that reads the server's max_payload (validate says so when it cannot).

With --json: {"file", "pipeline", "sources", "operators", "sinks", "modules": [{"operator",
"module", "size", "sha256", "abi_version", "states"}], "warnings", "graph": {"stages",
"edges"}}; the warnings, on stderr in text, are in the document, and the graph is there
for every pipeline.`,
		Example: `  wasmstream validate examples/payment-risk/pipeline.hcl
  wasmstream validate examples/payment-risk/pipeline.hcl --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// With --json the load warnings go into the document, not stderr.
			var loadWarnings bytes.Buffer
			warnTo := cmd.ErrOrStderr()
			if asJSON {
				warnTo = &loadWarnings
			}
			v, err := validatePipeline(context.Background(), args[0], warnTo)
			if err != nil {
				return err
			}
			if asJSON {
				v.warnings = append(nonEmptyLines(loadWarnings.String()), v.warnings...)
				return writeJSON(cmd.OutOrStdout(), v.toJSON())
			}
			v.print(cmd.OutOrStdout(), cmd.ErrOrStderr())
			return nil
		},
	}
	addJSONFlag(cmd, &asJSON, "the pipeline, its modules and the warnings")
	return cmd
}

// validation is what validate found: the pipeline, each module's report
// and every warning, in the order text output prints them.
type validation struct {
	file     string
	cfg      *config.Pipeline
	reports  []engine.ModuleReport
	warnings []string
}

func validatePipeline(ctx context.Context, path string, warnTo io.Writer) (*validation, error) {
	cfg, err := loadConfig(path, warnTo)
	if err != nil {
		return nil, err
	}
	reports, err := engine.Validate(ctx, cfg)
	if err != nil {
		return nil, err
	}
	v := &validation{file: path, cfg: cfg, reports: reports}
	for _, r := range reports {
		for _, w := range r.Warnings {
			v.warnings = append(v.warnings, w.String())
		}
	}
	v.warnings = append(v.warnings, engine.SinkWarnings(cfg)...)
	v.warnings = append(v.warnings, payloadWarnings(ctx, cfg)...)
	return v, nil
}

func (v *validation) print(out, errOut io.Writer) {
	fmt.Fprintf(out, "%s: pipeline %q is valid: %d source(s), %d operator(s), %d sink(s)\n",
		v.file, v.cfg.Name, len(v.cfg.Sources), len(v.cfg.Operators), len(v.cfg.Sinks))
	if v.cfg.HasExchangeEdges() {
		printGraph(out, v.cfg.Graph())
	}
	for _, r := range v.reports {
		fmt.Fprintf(out, "  operator %q: %s (%d bytes, sha256 %s, ABI v%d)\n", r.Operator, r.Module, r.Size, r.Hash[:16], r.ABIVersion)
		for _, line := range r.TTLs {
			fmt.Fprintf(out, "    state %s\n", line)
		}
	}
	for _, w := range v.warnings {
		fmt.Fprintf(errOut, "warning: %s\n", w)
	}
}

// payloadWarnings are the operators whose size limits exceed the server's
// max payload, or a warning that the check could not be made.
func payloadWarnings(ctx context.Context, cfg *config.Pipeline) []string {
	warnings, err := engine.PayloadWarnings(ctx, cfg)
	if err != nil {
		return []string{fmt.Sprintf("could not check the operators' limits.max_value_bytes against the server's max_payload: %v; run checks it when it connects", err)}
	}
	out := make([]string, len(warnings))
	for i, pw := range warnings {
		out[i] = pw.String()
	}
	return out
}

// validateJSON is validate --json. Field names are part of the CLI's
// contract (docs/cli.md).
type validateJSON struct {
	File      string               `json:"file"`
	Pipeline  string               `json:"pipeline"`
	Sources   int                  `json:"sources"`
	Operators int                  `json:"operators"`
	Sinks     int                  `json:"sinks"`
	Modules   []validateModuleJSON `json:"modules"`
	Warnings  []string             `json:"warnings"`
	// Graph is the pipeline's dataflow graph (validate_graph.go).
	Graph graphJSON `json:"graph"`
}

type validateModuleJSON struct {
	Operator   string `json:"operator"`
	Module     string `json:"module"`
	Size       int    `json:"size"`
	SHA256     string `json:"sha256"`
	ABIVersion int    `json:"abi_version"`
	// States are the effective state TTLs, one line each as text prints them.
	States []string `json:"states"`
}

func (v *validation) toJSON() validateJSON {
	j := validateJSON{File: v.file, Pipeline: v.cfg.Name, Sources: len(v.cfg.Sources), Operators: len(v.cfg.Operators),
		Sinks: len(v.cfg.Sinks), Modules: []validateModuleJSON{}, Warnings: v.warnings, Graph: toGraphJSON(v.cfg.Graph())}
	if j.Warnings == nil {
		j.Warnings = []string{}
	}
	for _, r := range v.reports {
		states := r.TTLs
		if states == nil {
			states = []string{}
		}
		j.Modules = append(j.Modules, validateModuleJSON{Operator: r.Operator, Module: r.Module, Size: r.Size,
			SHA256: r.Hash, ABIVersion: r.ABIVersion, States: states})
	}
	return j
}

// nonEmptyLines splits printed warnings into one entry each.
func nonEmptyLines(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}
