package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/plugins"
)

type operatorInspectFlags struct {
	operatorFlags
	json bool
}

// inspectedOperator is what inspect prints: the entry and whether a bare
// NAME resolves to it.
type inspectedOperator struct {
	plugins.Entry
	Newest bool `json:"newest"`
}

func newOperatorInspectCommand(g *globalFlags) *cobra.Command {
	f := &operatorInspectFlags{}
	cmd := &cobra.Command{
		Use:   "inspect REF (--config PIPELINE.hcl | --server URL) [--json]",
		Short: "Show one operator version: hash, size, ABI, memory, imports, push time",
		Long: `Inspect resolves REF as a pipeline would (NAME: the newest version; NAME@HASH: the
version whose SHA-256 starts with HASH, 8 hex digits at least) and prints everything the
registry knows of it. An unknown name, an unknown version or a prefix that matches
several versions is an error that lists the candidates.

With --json: the fields of list's JSON and "newest".`,
		Example: `  wasmstream operator inspect risk --config pipeline.hcl
  wasmstream operator inspect risk@3f2a9c1d --server nats://nats.internal:4222 --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := parseRegistryRef(args[0])
			if err != nil {
				return err
			}
			s, err := f.open(cmd, g, plugins.Limits{})
			if err != nil {
				return err
			}
			defer s.close()
			e, err := s.reg.Resolve(s.ctx, ref)
			if err != nil {
				return err
			}
			newest, err := s.reg.Resolve(s.ctx, plugins.Ref{Name: e.Name})
			if err != nil {
				return err
			}
			v := inspectedOperator{Entry: e, Newest: newest.Hash == e.Hash}
			if f.json {
				return writeJSON(cmd.OutOrStdout(), v)
			}
			writeInspected(cmd.OutOrStdout(), v)
			return nil
		},
	}
	f.addFlags(cmd)
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON instead of text")
	return cmd
}

func writeInspected(out io.Writer, v inspectedOperator) {
	rows := [][2]string{
		{"operator", v.Name},
		{"version", v.Hash},
		{"reference", v.String() + newestNote(v)},
		{"size", fmt.Sprintf("%s (%d bytes)", humanBytes(v.Size), v.Size)},
		{"ABI", "v" + strconv.Itoa(v.ABIVersion)},
		{"memory", formatMemory(v.Info)},
		{"imports", dashIfEmpty(strings.Join(v.Imports, " "))},
		{"pushed", v.PushedAt.UTC().Format(timeLayout)},
		{"description", dashIfEmpty(v.Description)},
	}
	for _, r := range rows {
		fmt.Fprintf(out, "%-12s %s\n", r[0], r[1])
	}
}

func newestNote(v inspectedOperator) string {
	if v.Newest {
		return fmt.Sprintf(" (the newest: %q resolves to it)", v.Name)
	}
	return ""
}

// formatMemory prints "44 pages (2.75 MiB) initially, no maximum declared".
func formatMemory(i plugins.Info) string {
	s := fmt.Sprintf("%d pages (%s) initially", i.MemoryMinPages, humanBytes(int64(i.MemoryMinPages)*64<<10))
	if i.MemoryMaxPages == nil {
		return s + ", no maximum declared"
	}
	return s + fmt.Sprintf(", at most %d pages", *i.MemoryMaxPages)
}
