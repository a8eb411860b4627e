package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/savepointstore"
)

type savepointListFlags struct {
	savepointCmdFlags
	objectStore bool
}

func newSavepointListCommand(g *globalFlags) *cobra.Command {
	f := &savepointListFlags{}
	cmd := &cobra.Command{
		Use:   "list (PIPELINE.hcl | --data-dir DIR)",
		Short: "List the savepoints, by name, with their checkpoint, size and positions",
		Long: `List prints one row per savepoint of the data dir: its name, when it was made (UTC), the
checkpoint it copies, the pipeline that wrote it, its size (state and modules), the last
stream sequence of each source (a restore resumes after it), the operator versions and
the description. It reads the two JSON files of each savepoint; inspect --verify reads
every byte. A savepoint that cannot be read is listed with the error after the table.

--object-store lists the pipeline's savepoints in the Object Store instead (the pipeline
file is needed for its NATS server).

With --json: an array of {"name", "pipeline", "checkpoint_id", "dir", "created",
"description", "state_files", "state_bytes", "module_bytes", "positions", "modules"} or
{"name", "error"}; with --object-store, of {"pipeline", "name", "bucket", "object",
"size", "stored", "checkpoint_id", "created", "description"}.`,
		Example: `  wasmstream savepoint list pipeline.hcl
  wasmstream savepoint list --data-dir /var/lib/payment-risk --json
  wasmstream savepoint list pipeline.hcl --object-store`,
		Args: f.args(0, 0, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, _, err := f.target(cmd, args)
			if err != nil {
				return err
			}
			if f.objectStore {
				return listStored(cmd.OutOrStdout(), g, t, f.json)
			}
			return listSavepoints(cmd.OutOrStdout(), t.root(), f.json)
		},
	}
	f.addFlags(cmd)
	cmd.Flags().BoolVar(&f.objectStore, "object-store", false, "list the pipeline's savepoints in the Object Store")
	return cmd
}

// savepointRow is one savepoint of the list, or why it could not be read.
type savepointRow struct {
	*savepointJSON
	Name  string `json:"name"`
	Error string `json:"error,omitempty"`

	sp checkpoint.Savepoint
}

func listSavepoints(out io.Writer, root string, asJSON bool) error {
	names, err := checkpoint.ListSavepoints(root)
	if err != nil {
		return err
	}
	rows := make([]savepointRow, 0, len(names))
	for _, name := range names {
		sp, err := checkpoint.ReadSavepoint(root, name)
		if err != nil {
			rows = append(rows, savepointRow{Name: name, Error: err.Error()})
			continue
		}
		j := toSavepointJSON(sp)
		rows = append(rows, savepointRow{savepointJSON: &j, Name: name, sp: sp})
	}
	if asJSON {
		return writeJSON(out, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintf(out, "no savepoints in %s (wasmstream savepoint create makes one)\n", root)
		return nil
	}
	writeSavepointTable(out, rows)
	for _, r := range rows {
		if r.Error != "" {
			fmt.Fprintf(out, "\nsavepoint %s is unreadable: %s\n", r.Name, r.Error)
		}
	}
	return nil
}

func writeSavepointTable(out io.Writer, rows []savepointRow) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tCREATED\tCHECKPOINT\tPIPELINE\tSTATE\tMODULES\tPOSITIONS\tOPERATORS\tDESCRIPTION")
	for _, r := range rows {
		if r.savepointJSON == nil {
			fmt.Fprintf(tw, "%s\tunreadable\t-\t-\t-\t-\t-\t-\t-\n", r.Name)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, r.Created.UTC().Format(time.RFC3339), r.CheckpointID,
			r.Pipeline, humanBytes(r.StateBytes), humanBytes(r.ModuleBytes), formatPositions(r.sp.Manifest.Sources),
			formatOperators(r.sp.Manifest.Operators), dashIfEmpty(r.Description))
	}
	_ = tw.Flush()
}

// listStored prints the pipeline's savepoints in the Object Store.
func listStored(out io.Writer, g *globalFlags, t savepointTarget, asJSON bool) error {
	s, err := t.store(g)
	if err != nil {
		return err
	}
	defer s.close()
	all, err := s.store.List(s.ctx, t.cfg.Name)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(out, all)
	}
	if len(all) == 0 {
		fmt.Fprintf(out, "no savepoints of pipeline %s in bucket %s on %s\n", t.cfg.Name, savepointstore.SavepointBucket, s.conn.ClientURL())
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tCREATED\tCHECKPOINT\tSIZE\tSTORED\tOBJECT\tDESCRIPTION")
	for _, st := range all {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", st.Name, st.Created.UTC().Format(time.RFC3339), st.CheckpointID,
			humanBytes(int64(st.Size)), st.Stored.UTC().Format(time.RFC3339), st.Object, dashIfEmpty(st.Description))
	}
	_ = tw.Flush()
	fmt.Fprintf(out, "(bucket %s on %s)\n", savepointstore.SavepointBucket, s.conn.ClientURL())
	return nil
}
