package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/internal/execrun"
	"github.com/wasmstream/wasmstream/internal/statequery"
)

// stateFlags are the flags get and scan share: where the checkpoints are,
// the output form, the operator and the checkpoint.
type stateFlags struct {
	checkpointsCmdFlags
	operator   string
	checkpoint uint64
}

func newStateCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "state",
		Short: "Read an operator's keyed state from a checkpoint",
		Long: `get and scan read the keyed state of one operator from a checkpoint of the pipeline's
data dir (<data_dir>/checkpoints), without running the pipeline: the newest checkpoint
that verifies, or the one --checkpoint names. The checkpoint is verified first and read
through a private copy, so it is never changed. Values print as exec prints state: as
text or JSON when printable, else hex or base64, with an encoding column and the expiry
of a state with a TTL. --json prints JSON lines. See docs/state-queries.md.`,
		Example: `  wasmstream state get examples/payment-risk/pipeline.hcl --operator risk --key acct-47
  wasmstream state scan examples/payment-risk/pipeline.hcl --operator risk --prefix acct- --limit 10 --json`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return fmt.Errorf("%s: unknown command %q; use get or scan (see %s --help)", cmd.CommandPath(), args[0], cmd.CommandPath())
		},
	}
	cmd.AddCommand(newStateGetCommand(), newStateScanCommand())
	return cmd
}

// addFlags registers the shared flags.
func (f *stateFlags) addFlags(cmd *cobra.Command) {
	f.checkpointsCmdFlags.addFlags(cmd)
	cmd.Flags().StringVar(&f.operator, "operator", "", "the operator whose state is read (required)")
	cmd.Flags().Uint64Var(&f.checkpoint, "checkpoint", 0, "read this checkpoint (default: the newest that verifies)")
	_ = cmd.MarkFlagRequired("operator")
}

// openSnapshot opens the checkpoint the flags name. A cluster pipeline's
// checkpoints live in its Object Store, which this command does not read.
func (f *stateFlags) openSnapshot(cmd *cobra.Command, args []string) (*statequery.Snapshot, error) {
	t, _, err := f.target(cmd, args)
	if err != nil {
		return nil, err
	}
	if t.cluster() {
		return nil, fmt.Errorf("%s: %s is a cluster pipeline: its checkpoints are in the Object Store wasmstream-%s-state, "+
			"which state get and scan do not read yet (wasmstream checkpoints inspect shows their manifests); only a single-process pipeline's data dir is read",
			cmd.CommandPath(), args[0], t.cfg.Name)
	}
	return statequery.OpenCheckpoint(t.root, f.checkpoint)
}

// writeEntries prints entries of operator read from checkpoint id (0: live).
func (f *stateFlags) writeEntries(out io.Writer, id uint64, where string, entries []statequery.Entry) error {
	values := make([]execrun.StateValue, len(entries))
	for i, e := range entries {
		values[i] = execrun.StateValueOf(e.Key, e.Name, e.Value, e.ExpiresAt)
	}
	if f.json {
		lines := make([]execrun.StateLine, len(entries))
		for i, v := range values {
			lines[i] = execrun.NewStateLine(v)
			lines[i].Operator, lines[i].KeyGroup, lines[i].Checkpoint = f.operator, entries[i].KeyGroup, id
		}
		return execrun.WriteStateLines(out, lines)
	}
	fmt.Fprintln(out, where)
	return execrun.WriteStateTable(out, f.operator, values)
}

// fromCheckpoint says where entries were read, above the table.
func fromCheckpoint(s *statequery.Snapshot) string {
	return fmt.Sprintf("checkpoint %d (%s)", s.ID, s.Dir)
}
