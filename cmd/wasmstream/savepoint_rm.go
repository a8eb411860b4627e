package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/savepointstore"
)

type savepointRmFlags struct {
	savepointCmdFlags
	objectStore bool
}

func newSavepointRmCommand(g *globalFlags) *cobra.Command {
	f := &savepointRmFlags{}
	cmd := &cobra.Command{
		Use:   "rm (PIPELINE.hcl | --data-dir DIR) NAME",
		Short: "Remove a savepoint",
		Long: `Rm deletes savepoint NAME from the data dir: the only way a savepoint goes (retention
never touches one). Checkpoints restored from it are ordinary checkpoints and stay.
--object-store removes the pipeline's savepoint object NAME from the Object Store
instead (the pipeline file is needed for its NATS server).

With --json: {"removed", "dir"}, or with --object-store {"removed", "object", "bucket",
"server"}; removed is NAME.`,
		Example: `  wasmstream savepoint rm pipeline.hcl before-v2
  wasmstream savepoint rm pipeline.hcl before-v2 --object-store`,
		Args: f.args(1, 1, "the savepoint name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, rest, err := f.target(cmd, args)
			if err != nil {
				return err
			}
			name, out := rest[0], cmd.OutOrStdout()
			if !f.objectStore {
				if err := checkpoint.RemoveSavepoint(t.root(), name); err != nil {
					return explainSavepointNotFound(t.root(), err)
				}
				dir := checkpoint.SavepointDir(t.root(), name)
				if f.json {
					return writeJSON(out, savepointRmJSON{Removed: name, Dir: dir})
				}
				fmt.Fprintf(out, "removed savepoint %s (%s)\n", name, dir)
				return nil
			}
			s, err := t.store(g)
			if err != nil {
				return err
			}
			defer s.close()
			if err := s.store.Remove(s.ctx, t.cfg.Name, name); err != nil {
				return err
			}
			j := savepointRmJSON{Removed: name, Object: savepointstore.SavepointObject(t.cfg.Name, name),
				Bucket: savepointstore.SavepointBucket, Server: s.conn.ClientURL()}
			if f.json {
				return writeJSON(out, j)
			}
			fmt.Fprintf(out, "removed %s from bucket %s on %s\n", j.Object, j.Bucket, j.Server)
			return nil
		},
	}
	f.addFlags(cmd)
	cmd.Flags().BoolVar(&f.objectStore, "object-store", false, "remove the savepoint from the Object Store instead")
	return cmd
}

// savepointRmJSON is savepoint rm --json: Dir for the data dir, the rest
// for the Object Store.
type savepointRmJSON struct {
	Removed string `json:"removed"`
	Dir     string `json:"dir,omitempty"`
	Object  string `json:"object,omitempty"`
	Bucket  string `json:"bucket,omitempty"`
	Server  string `json:"server,omitempty"`
}
