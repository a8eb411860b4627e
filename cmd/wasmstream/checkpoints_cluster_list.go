package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/internal/cluster/clusterckpt"
	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// clusterListRow is one cluster checkpoint of the list: its completion
// record, and the summary of its manifest or why that could not be read.
type clusterListRow struct {
	ID         uint64 `json:"id"`
	Latest     bool   `json:"latest"`
	Generation uint64 `json:"generation"`
	Assignment uint64 `json:"assignment"`
	Manifest   string `json:"manifest"`
	*clusterSummary
	Error string `json:"error,omitempty"`
	// Collected: retention removed the checkpoint's objects; only its
	// completion record is left (Error says the manifest is missing).
	Collected bool `json:"collected,omitempty"`
}

// clusterSummary is a list row of a readable manifest: a data dir's row
// (of its single-process cut) plus what the cluster adds.
type clusterSummary struct {
	Created         time.Time `json:"created"`
	Workers         []string  `json:"workers"`
	TaskCheckpoints int       `json:"task_checkpoints"`
	*listSummary
}

// listCluster prints the cluster's completed checkpoints, newest first.
// None yet (even no buckets yet) is not an error, as an empty data dir is
// not one.
func listCluster(cmd *cobra.Command, cfg *config.Pipeline, asJSON bool) error {
	out := cmd.OutOrStdout()
	rows, where, err := readClusterRows(cmd, cfg)
	if errors.Is(err, clusterckpt.ErrNoCheckpoint) {
		if asJSON {
			return writeJSON(out, []clusterListRow{})
		}
		fmt.Fprintln(out, err)
		return nil
	}
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(out, rows)
	}
	fmt.Fprintf(out, "cluster checkpoints of pipeline %q %s\n", cfg.Name, where)
	if len(rows) == 0 {
		fmt.Fprintln(out, "none completed yet: start the workers (wasmstream worker PIPELINE.hcl --id ID) and wait for one")
		return nil
	}
	var collected []uint64
	var kept []clusterListRow
	for _, r := range rows {
		if r.Collected {
			collected = append(collected, r.ID)
		} else {
			kept = append(kept, r)
		}
	}
	writeClusterListTable(out, kept)
	writeClusterListProblems(out, kept)
	if len(collected) > 0 {
		fmt.Fprintf(out, "\n%d older cluster checkpoint(s) not listed (%s): retention removed their objects (checkpoint.retain = %d); only their completion records are left\n",
			len(collected), joinIDs(collected), clusterckpt.Retain(cfg))
	}
	return nil
}

// readClusterRows reads every completed checkpoint, and says where from.
func readClusterRows(cmd *cobra.Command, cfg *config.Pipeline) ([]clusterListRow, string, error) {
	s, err := openCluster(cmd, cfg)
	if err != nil {
		return nil, "", err
	}
	defer s.close()
	list, err := s.List(s.ctx)
	if err != nil {
		return nil, "", err
	}
	rows := make([]clusterListRow, 0, len(list))
	for _, c := range list {
		r := clusterListRow{ID: c.ID(), Latest: c.Latest, Generation: c.Record.Generation, Assignment: c.Record.Assignment,
			Manifest: c.Record.Manifest, Collected: c.Collected}
		if c.Err != nil {
			r.Error = c.Err.Error()
		} else {
			m := c.Manifest
			r.clusterSummary = &clusterSummary{Created: m.Checkpoint.Created.UTC(), Workers: m.Workers,
				TaskCheckpoints: clusterckpt.TaskCheckpoints(m), listSummary: summarize(m.Checkpoint)}
		}
		rows = append(rows, r)
	}
	return rows, fmt.Sprintf("on %s (KV %s, Object Store %s)", s.Server(), s.Bucket(), s.ObjectStore()), nil
}

func writeClusterListTable(out io.Writer, rows []clusterListRow) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tGENERATION\tASSIGNMENT\tCREATED\tDURATION\tWORKERS\tBYTES\tNEW\tPOSITIONS\tOPERATORS")
	for _, r := range rows {
		id := fmt.Sprint(r.ID)
		if r.Latest {
			id += " (latest)"
		}
		if r.clusterSummary == nil {
			fmt.Fprintf(tw, "%s\t%d\t%d\tunreadable\t-\t-\t-\t-\t-\t-\n", id, r.Generation, r.Assignment)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", id, r.Generation, r.Assignment,
			r.Created.Format(time.RFC3339), humanDuration(r.DurationNanos), strings.Join(r.Workers, ","),
			humanBytes(r.BytesTotal), humanBytes(r.BytesNew), formatPositions(r.sources), formatOperators(r.operators))
	}
	_ = tw.Flush()
}

// writeClusterListProblems prints why each unreadable checkpoint could not
// be read.
func writeClusterListProblems(out io.Writer, rows []clusterListRow) {
	bad := 0
	for _, r := range rows {
		if r.Error != "" {
			if bad == 0 {
				fmt.Fprintln(out)
			}
			bad++
			fmt.Fprintf(out, "unreadable: %s\n", r.Error) // the error names the checkpoint and the object or key
		}
	}
	if bad > 0 {
		fmt.Fprintf(out, "%d unreadable cluster checkpoint(s): a restore refuses them; `wasmstream checkpoints verify PIPELINE.hcl --all` checks every object\n", bad)
	}
}
