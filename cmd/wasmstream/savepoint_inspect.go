package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/checkpoint"
)

type savepointInspectFlags struct {
	savepointCmdFlags
	files, config, verify bool
}

func newSavepointInspectCommand() *cobra.Command {
	f := &savepointInspectFlags{}
	cmd := &cobra.Command{
		Use:   "inspect (PIPELINE.hcl | --data-dir DIR) NAME",
		Short: "Show a savepoint: what it is, and the checkpoint it holds",
		Long: `Inspect prints a savepoint's own facts (directory, pipeline, creation time, description,
size, positions, modules with their files) and then the checkpoint it holds, as
"checkpoints inspect" shows one: times, metrics, each source's position and each
operator's version and tasks. --files lists every file, --config prints the pipeline
configuration stored with the checkpoint, and --verify reads every byte of the savepoint
(checkpoint files and modules) and fails if anything is damaged.

With --json: {"savepoint": SAVEPOINT.json as stored, "manifest": MANIFEST.json as stored,
"dir", "verified": true|false|null, "error"?}.`,
		Example: `  wasmstream savepoint inspect pipeline.hcl before-v2
  wasmstream savepoint inspect --data-dir /var/lib/payment-risk before-v2 --verify --json`,
		Args: f.args(1, 1, "the savepoint name"),
		RunE: func(cmd *cobra.Command, args []string) error { return inspectSavepoint(cmd, f, args) },
	}
	f.addFlags(cmd)
	cmd.Flags().BoolVar(&f.files, "files", false, "list every file of the checkpoint")
	cmd.Flags().BoolVar(&f.config, "config", false, "print the stored pipeline configuration")
	cmd.Flags().BoolVar(&f.verify, "verify", false, "read and check every byte of the savepoint")
	return cmd
}

type inspectSavepointJSON struct {
	Savepoint checkpoint.SavepointInfo `json:"savepoint"`
	Manifest  checkpoint.Manifest      `json:"manifest"`
	Dir       string                   `json:"dir"`
	Verified  *bool                    `json:"verified"`
	Error     string                   `json:"error,omitempty"`
}

func inspectSavepoint(cmd *cobra.Command, f *savepointInspectFlags, args []string) error {
	t, rest, err := f.target(cmd, args)
	if err != nil {
		return err
	}
	sp, err := checkpoint.ReadSavepoint(t.root(), rest[0])
	if err != nil {
		return explainSavepointNotFound(t.root(), err)
	}
	var verified *bool
	var verr error
	if f.verify {
		verr = checkpoint.VerifySavepoint(t.root(), sp.Info.Name)
		ok := verr == nil
		verified = &ok
	}
	out := cmd.OutOrStdout()
	if f.json {
		j := inspectSavepointJSON{Savepoint: sp.Info, Manifest: sp.Manifest, Dir: sp.Dir, Verified: verified}
		if verr != nil {
			j.Error = verr.Error()
		}
		if err := writeJSON(out, j); err != nil {
			return err
		}
		return verr
	}
	writeSavepointInspect(out, sp, verified, f.files, f.config)
	return verr
}

func writeSavepointInspect(out io.Writer, sp checkpoint.Savepoint, verified *bool, files, config bool) {
	fmt.Fprintf(out, "savepoint %s\n", sp.Info.Name)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	writeSavepointFacts(tw, sp)
	switch {
	case verified == nil:
		fmt.Fprintf(tw, "  verified\tnot checked (--verify reads every byte)\n")
	case *verified:
		fmt.Fprintf(tw, "  verified\tok (%d files and %d module(s), every byte)\n", len(sp.Manifest.Files), len(distinctModules(sp)))
	default:
		fmt.Fprintf(tw, "  verified\tFAILED (see the error below)\n")
	}
	_ = tw.Flush()
	fmt.Fprintf(out, "\nmodules (%d)\n", len(sp.Info.Modules))
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  OPERATOR\tSHA256\tSIZE\tFILE")
	for _, m := range sp.Info.Modules {
		fmt.Fprintf(tw, "  %s\t%s\t%s\tmodules/%s.wasm\n", m.Operator, m.SHA256, humanBytes(m.Size), m.SHA256)
	}
	_ = tw.Flush()
	fmt.Fprintln(out)
	writeSummary(out, sp.Manifest, sp.Dir)
	writeSources(out, sp.Manifest.Sources)
	for _, op := range sp.Manifest.Operators {
		writeOperator(out, op)
	}
	if files {
		writeFiles(out, sp.Manifest.Files)
	}
	if config {
		writeConfig(out, sp.Manifest.Config)
	}
}

func distinctModules(sp checkpoint.Savepoint) map[string]bool {
	out := map[string]bool{}
	for _, m := range sp.Info.Modules {
		out[m.SHA256] = true
	}
	return out
}
