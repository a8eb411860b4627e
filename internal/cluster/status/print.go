package status

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Print writes s for a terminal.
func Print(w io.Writer, s Status) {
	fmt.Fprintf(w, "pipeline %s (read %s)\n", s.Pipeline, s.ReadAt.Format(time.RFC3339))
	if s.Coordinator != "" {
		fmt.Fprintf(w, "coordinator: %s\n", s.Coordinator)
	} else {
		fmt.Fprintln(w, "coordinator: none (no worker holds the lease)")
	}
	printWorkers(w, s.Workers)
	printCheckpoint(w, s.Checkpoint)
	printAssignment(w, s.Assignment)
}

func printWorkers(w io.Writer, ws []Worker) {
	if len(ws) == 0 {
		fmt.Fprintln(w, "workers: none")
		return
	}
	fmt.Fprintln(w, "workers:")
	for _, wk := range ws {
		state := "alive"
		if !wk.Alive {
			state = "no heartbeat"
		}
		fmt.Fprintf(w, "  %-20s %-13s %d tasks\n", wk.ID, state, wk.Tasks)
	}
}

func printCheckpoint(w io.Writer, c *Last) {
	if c == nil {
		fmt.Fprintln(w, "last checkpoint: none completed yet")
		return
	}
	var pos []string
	for _, name := range slices.Sorted(maps.Keys(c.Positions)) {
		pos = append(pos, fmt.Sprintf("%s=%d", name, c.Positions[name]))
	}
	fmt.Fprintf(w, "last checkpoint: %d (generation %d, assignment %d) created %s, positions %s\n",
		c.ID, c.Generation, c.Assignment, c.Created.Format(time.RFC3339), strings.Join(pos, " "))
}

func printAssignment(w io.Writer, a *Assigned) {
	if a == nil {
		fmt.Fprintln(w, "assignment: none yet")
		return
	}
	fmt.Fprintf(w, "assignment %d (generation %d):\n", a.Epoch, a.Generation)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  OPERATOR\tTASK\tKEY GROUPS\tWORKER\tLAG AT LAST CHECKPOINT")
	for _, t := range a.Tasks {
		var lag []string
		for _, src := range slices.Sorted(maps.Keys(t.Lag)) {
			lag = append(lag, fmt.Sprintf("%s=%d", src, t.Lag[src]))
		}
		fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s\n", t.Operator, t.Index, t.Range, t.Worker, strings.Join(lag, " "))
	}
	_ = tw.Flush()
}
