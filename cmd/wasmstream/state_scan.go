package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

type stateScanFlags struct {
	stateFlags
	prefix string
	limit  int
}

func newStateScanCommand() *cobra.Command {
	f := &stateScanFlags{}
	cmd := &cobra.Command{
		Use:   "scan (PIPELINE.hcl | --data-dir DIR) --operator NAME",
		Short: "Print the state entries of many record keys",
		Long: `scan prints an operator's state entries whose record key starts with --prefix (all
of them without it), in key-group order, at most --limit of them. An empty result is
not an error: the table says 0 entries, --json prints nothing.`,
		Example: `  wasmstream state scan examples/payment-risk/pipeline.hcl --operator risk
  wasmstream state scan examples/payment-risk/pipeline.hcl --operator risk --prefix acct-4 --limit 100 --json`,
		Args: f.args(0, 0, ""),
		RunE: func(cmd *cobra.Command, args []string) error { return stateScan(cmd, f, args) },
	}
	f.addFlags(cmd)
	cmd.Flags().StringVar(&f.prefix, "prefix", "", "only record keys that start with this")
	cmd.Flags().IntVar(&f.limit, "limit", 0, "print at most this many entries (0: all)")
	return cmd
}

func stateScan(cmd *cobra.Command, f *stateScanFlags, args []string) error {
	if f.limit < 0 {
		return fmt.Errorf("%s: --limit %d must not be negative (0 prints all)", cmd.CommandPath(), f.limit)
	}
	s, err := f.openSnapshot(cmd, args)
	if err != nil {
		return err
	}
	defer s.Close()
	entries, err := s.Scan(f.operator, []byte(f.prefix), f.limit)
	if err != nil {
		return err
	}
	return f.writeEntries(cmd.OutOrStdout(), s.ID, fromCheckpoint(s), entries)
}
