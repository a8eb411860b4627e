package main

import (
	"time"

	"github.com/spf13/cobra"
)

type stateGetFlags struct {
	stateFlags
	key     string
	state   string
	live    bool
	timeout time.Duration
}

func newStateGetCommand() *cobra.Command {
	f := &stateGetFlags{}
	cmd := &cobra.Command{
		Use:   "get (PIPELINE.hcl | --data-dir DIR) --operator NAME --key KEY",
		Short: "Print the state of one record key",
		Long: `get prints every state entry an operator holds for one record key (the key its key
block extracts from a record), or only state --state S (with the entries of map state S).
It exits non-zero, naming the key and the checkpoint, when there is none.

--live asks the running pipeline instead (NATS request-reply on
wasmstream.query.<pipeline>, as the control user of an embedded server): the task that
owns the key's key group answers between two batches, from its write-back cache, so
the answer includes records processed since the last checkpoint.`,
		Example: `  wasmstream state get examples/payment-risk/pipeline.hcl --operator risk --key acct-47
  wasmstream state get examples/payment-risk/pipeline.hcl --operator risk --key acct-47 --state total --checkpoint 3 --json
  wasmstream state get examples/payment-risk/pipeline.hcl --operator risk --key acct-47 --live`,
		Args: f.args(0, 0, ""),
		RunE: func(cmd *cobra.Command, args []string) error { return stateGet(cmd, f, args) },
	}
	f.addFlags(cmd)
	cmd.Flags().StringVar(&f.key, "key", "", "the record key (required)")
	cmd.Flags().StringVar(&f.state, "state", "", "only this state (a map state: all its entries)")
	cmd.Flags().BoolVar(&f.live, "live", false, "ask the running pipeline instead of a checkpoint")
	cmd.Flags().DurationVar(&f.timeout, "timeout", defaultLiveTimeout, "with --live: how long to wait for the answer")
	_ = cmd.MarkFlagRequired("key")
	return cmd
}

func stateGet(cmd *cobra.Command, f *stateGetFlags, args []string) error {
	if f.live {
		return stateGetLive(cmd, f, args)
	}
	s, err := f.openSnapshot(cmd, args)
	if err != nil {
		return err
	}
	defer s.Close()
	entries, err := s.Get(f.operator, []byte(f.key), f.state)
	if err != nil {
		return err
	}
	return f.writeEntries(cmd.OutOrStdout(), s.ID, fromCheckpoint(s), entries)
}
