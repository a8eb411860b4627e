package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/plugins"
)

type operatorListFlags struct {
	operatorFlags
	json bool
}

func newOperatorListCommand(g *globalFlags) *cobra.Command {
	f := &operatorListFlags{}
	cmd := &cobra.Command{
		Use:   "list (--config PIPELINE.hcl | --server URL) [--json]",
		Short: "List every operator version in the registry, newest first per name",
		Long: `List prints one row per version: the operator name, the version (the first 12 hex
digits of its SHA-256; NAME@VERSION is a valid reference), its size, ABI version, when it
was pushed (UTC, the server's clock) and its description. Within a name the newest
comes first and is marked: a bare NAME in a pipeline resolves to it.

With --json: an array of {"name", "sha256", "size", "abi_version", "imports",
"memory_min_pages", "memory_max_pages", "pushed_at", "description"}.`,
		Example: `  wasmstream operator list --config pipeline.hcl
  wasmstream operator list --server nats://nats.internal:4222 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := f.open(cmd, g, plugins.Limits{})
			if err != nil {
				return err
			}
			defer s.close()
			entries, err := s.reg.List(s.ctx)
			if err != nil {
				return err
			}
			if f.json {
				return writeJSON(cmd.OutOrStdout(), entries)
			}
			writeOperatorTable(cmd.OutOrStdout(), entries, s.reg.Bucket())
			return nil
		},
	}
	f.addFlags(cmd)
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON instead of text")
	return cmd
}

func writeOperatorTable(out io.Writer, entries []plugins.Entry, bucket string) {
	if len(entries) == 0 {
		fmt.Fprintf(out, "no operators in bucket %s; push one with: wasmstream operator push FILE --name NAME\n", bucket)
		return
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tNEWEST\tSIZE\tABI\tPUSHED (UTC)\tDESCRIPTION")
	for i, e := range entries {
		newest := i == 0 || entries[i-1].Name != e.Name
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\tv%d\t%s\t%s\n", e.Name, e.ShortHash(), newestMark(newest), humanBytes(e.Size),
			e.ABIVersion, e.PushedAt.UTC().Format(timeLayout), dashIfEmpty(e.Description))
	}
	_ = tw.Flush()
}

func newestMark(newest bool) string {
	if newest {
		return "*"
	}
	return ""
}
