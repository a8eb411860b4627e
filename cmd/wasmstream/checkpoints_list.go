package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/checkpoint"
)

func newCheckpointsListCommand() *cobra.Command {
	f := &checkpointsCmdFlags{}
	cmd := &cobra.Command{
		Use:   "list (PIPELINE.hcl | --data-dir DIR)",
		Short: "List the checkpoints, newest first, with their positions, operators and metrics",
		Long: `List prints one row per checkpoint, newest first: its id, completion time (UTC), how long
it took from trigger to completion, the longest barrier alignment and processing pause of
any task, the mode (aligned or unaligned), its total size and the bytes the previous
checkpoint did not already hold, the last stream sequence of each source (a restore
resumes after it) and the version (module SHA-256, first 12 hex digits) of each operator.

A checkpoint whose manifest cannot be read is listed with the error and the problems are
printed after the table; list still exits 0, so run verify to fail on damage.

With --json: an array, newest first, of {"id", "completed", "duration_ns", "alignment_ns",
"max_pause_ns", "mode", "bytes_total", "bytes_new", "positions": {source: last_sequence},
"operators": [{"name", "module_sha256"}]}, or {"id", "error"} for an unreadable one.

For a pipeline file with a cluster block, list prints the cluster's completed
checkpoints instead, read from its NATS (see wasmstream checkpoints --help): per
checkpoint its id (the latest, which workers restore, is marked), the generation of
the coordinator that completed it, the assignment epoch its workers ran under, when it
was triggered, how long it took, the workers that acked it, the bytes of its task
checkpoints and the part it uploaded, the position of each source (the lowest any
worker reported) and the operator versions. With --json each row also has "latest",
"generation", "assignment", "manifest" (its Object Store object), "created", "workers"
and "task_checkpoints".`,
		Example: `  wasmstream checkpoints list examples/payment-risk/pipeline.hcl
  wasmstream checkpoints list --data-dir /var/lib/payment-risk --json`,
		Args: f.args(0, 0, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, _, err := f.target(cmd, args)
			if err != nil {
				return err
			}
			if t.cluster() {
				return listCluster(cmd, t.cfg, f.json)
			}
			return listCheckpoints(cmd.OutOrStdout(), t.root, f.json)
		},
	}
	f.addFlags(cmd)
	return cmd
}

// listRow is one checkpoint of the list: its summary, or the error that
// stopped its manifest from being read.
type listRow struct {
	ID uint64 `json:"id"`
	*listSummary
	Error string `json:"error,omitempty"`
}

// listSummary is what a list row shows of a readable manifest; raw numbers,
// formatted only for text output.
type listSummary struct {
	Completed      time.Time         `json:"completed"`
	DurationNanos  int64             `json:"duration_ns"`
	AlignmentNanos int64             `json:"alignment_ns"`
	MaxPauseNanos  int64             `json:"max_pause_ns"`
	Mode           string            `json:"mode"`
	BytesTotal     int64             `json:"bytes_total"`
	BytesNew       int64             `json:"bytes_new"`
	Positions      map[string]uint64 `json:"positions"`
	Operators      []listOperator    `json:"operators"`

	sources   []checkpoint.SourcePosition
	operators []checkpoint.OperatorEntry
}

// listOperator is one operator version of a list row.
type listOperator struct {
	Name         string `json:"name"`
	ModuleSHA256 string `json:"module_sha256"`
}

func listCheckpoints(out io.Writer, root string, asJSON bool) error {
	rows, err := readRows(root)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(out, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintf(out, "no checkpoints in %s%s\n", root, rootHint(root))
		return nil
	}
	writeListTable(out, rows)
	writeListProblems(out, rows)
	return nil
}

// readRows reads the manifest of every checkpoint under root, newest first.
func readRows(root string) ([]listRow, error) {
	ids, err := checkpoint.List(root)
	if err != nil {
		return nil, err
	}
	rows := make([]listRow, 0, len(ids))
	for _, id := range ids {
		m, err := checkpoint.Read(root, id)
		if err != nil {
			rows = append(rows, listRow{ID: id, Error: err.Error()})
			continue
		}
		rows = append(rows, listRow{ID: id, listSummary: summarize(m)})
	}
	return rows, nil
}

func summarize(m checkpoint.Manifest) *listSummary {
	s := &listSummary{
		Completed:      m.Completed.UTC(),
		DurationNanos:  m.Metrics.DurationNanos,
		AlignmentNanos: m.Metrics.AlignmentNanos,
		MaxPauseNanos:  m.Metrics.MaxPauseNanos,
		Mode:           m.Metrics.Mode,
		BytesTotal:     m.Metrics.BytesTotal,
		BytesNew:       m.Metrics.BytesNew,
		Positions:      map[string]uint64{},
		Operators:      []listOperator{},
		sources:        m.Sources,
		operators:      m.Operators,
	}
	for _, src := range m.Sources {
		s.Positions[src.Name] = src.LastSequence
	}
	for _, op := range m.Operators {
		s.Operators = append(s.Operators, listOperator{Name: op.Name, ModuleSHA256: op.ModuleSHA256})
	}
	return s
}

func writeListTable(out io.Writer, rows []listRow) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCOMPLETED\tDURATION\tALIGNMENT\tMAX PAUSE\tMODE\tBYTES\tNEW\tPOSITIONS\tOPERATORS")
	for _, r := range rows {
		if r.listSummary == nil {
			fmt.Fprintf(tw, "%d\tunreadable\t-\t-\t-\t-\t-\t-\t-\t-\n", r.ID)
			continue
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID,
			r.Completed.Format(time.RFC3339), humanDuration(r.DurationNanos),
			humanDuration(r.AlignmentNanos), humanDuration(r.MaxPauseNanos), dashIfEmpty(r.Mode),
			humanBytes(r.BytesTotal), humanBytes(r.BytesNew),
			formatPositions(r.sources), formatOperators(r.operators))
	}
	_ = tw.Flush()
}

// writeListProblems prints why each unreadable checkpoint could not be read.
func writeListProblems(out io.Writer, rows []listRow) {
	bad := 0
	for _, r := range rows {
		if r.Error != "" {
			if bad == 0 {
				fmt.Fprintln(out)
			}
			bad++
			fmt.Fprintf(out, "checkpoint %d is unreadable: %s\n", r.ID, r.Error)
		}
	}
	if bad > 0 {
		fmt.Fprintf(out, "%d unreadable checkpoint(s): a restore refuses them; `wasmstream checkpoints verify` checks every file\n", bad)
	}
}

// rootHint says why a checkpoint root may be empty.
func rootHint(root string) string {
	if _, err := os.Stat(root); errors.Is(err, os.ErrNotExist) {
		return " (the directory does not exist: the pipeline has not completed a checkpoint yet, or the data dir is another one)"
	}
	return ""
}

// writeJSON prints v indented, one value per command. HTML escaping is off:
// the output goes to terminals and tools, and "\u003e" in a stored config
// only hides its subjects' ">" wildcards.
func writeJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
