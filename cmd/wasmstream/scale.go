package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/internal/cluster/assign"
	"github.com/wasmstream/wasmstream/internal/cluster/worker"
)

type scaleFlags struct {
	operator    string
	parallelism int
	wait        time.Duration
	asJSON      bool
}

func newScaleCommand(g *globalFlags) *cobra.Command {
	f := &scaleFlags{}
	cmd := &cobra.Command{
		Use:   "scale PIPELINE.hcl --operator NAME --parallelism P",
		Short: "Change the parallelism of an operator of a running cluster pipeline",
		Long: `Scale asks the coordinator of a cluster pipeline (run by wasmstream worker) to run
an operator with another number of tasks. The coordinator writes a new assignment; the
workers whose key groups change restart their tasks from the last cluster checkpoint,
restoring each new task's range from the task checkpoints that overlap it (a scale-out
reads part of one, a scale-in several). The parallelism stays in force (the file's
parallelism applies only before the first assignment) until the next scale.

Before writing the new assignment the coordinator takes a handover checkpoint, so the
moved tasks replay only what arrived since; the other tasks keep running. A change can
wait for a NATS leader election or a coordinator failover: scale says every 10 s what
it waits for, and gives up after --wait (the request stays; the coordinator still
carries it out). Not yet: pipelines with a transactional sink, which are refused.

With --json: {"operator", "parallelism", "assignment", "tasks": [{"task", "key_groups":
{"start", "end"}, "worker"}]}: "assignment" is the epoch of the coordinator's new
assignment, each task's key groups are [start, end).`,
		Example: `  wasmstream scale pipeline.hcl --operator risk --parallelism 8`,
		Args:    cobra.ExactArgs(1),
		RunE:    func(cmd *cobra.Command, args []string) error { return runScale(cmd, g, f, args[0]) },
	}
	cmd.Flags().StringVar(&f.operator, "operator", "", "the operator to rescale (required)")
	cmd.Flags().IntVar(&f.parallelism, "parallelism", 0, "its new number of tasks, 1 to its max_parallelism (required)")
	cmd.Flags().DurationVar(&f.wait, "wait", 2*time.Minute, "how long to wait for the coordinator's new assignment (a change may wait for a leader election and a coordinator failover)")
	addJSONFlag(cmd, &f.asJSON, "the new assignment of the operator")
	_ = cmd.MarkFlagRequired("operator")
	_ = cmd.MarkFlagRequired("parallelism")
	return cmd
}

func runScale(cmd *cobra.Command, g *globalFlags, f *scaleFlags, path string) error {
	c, err := dialCluster(cmd, g, path, "scale changes pipelines run by wasmstream worker; a wasmstream run pipeline takes a new parallelism from its file at the next start")
	if err != nil {
		return err
	}
	defer c.close()
	progress := func(line string) { fmt.Fprintln(cmd.ErrOrStderr(), line) }
	a, err := worker.RequestScale(c.ctx, c.conn, c.cfg, f.operator, f.parallelism, f.wait, progress)
	if err != nil {
		return err
	}
	if f.asJSON {
		return writeJSON(cmd.OutOrStdout(), scaledJSON(a, f.operator, f.parallelism))
	}
	fmt.Fprintf(cmd.OutOrStdout(), "operator %s runs %d tasks from assignment %d: %s\n", f.operator, f.parallelism, a.Epoch, placement(a, f.operator))
	return nil
}

// scaledDoc is what scale --json prints.
type scaledDoc struct {
	Operator    string       `json:"operator"`
	Parallelism int          `json:"parallelism"`
	Assignment  uint64       `json:"assignment"`
	Tasks       []scaledTask `json:"tasks"`
}

type scaledTask struct {
	Task      int       `json:"task"`
	KeyGroups keyGroups `json:"key_groups"`
	Worker    string    `json:"worker"`
}

type keyGroups struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// scaledJSON is the operator's tasks in assignment a.
func scaledJSON(a assign.Assignment, operator string, parallelism int) scaledDoc {
	d := scaledDoc{Operator: operator, Parallelism: parallelism, Assignment: a.Epoch, Tasks: []scaledTask{}}
	for _, o := range a.Operators {
		if o.Name != operator {
			continue
		}
		for i, t := range o.Tasks {
			d.Tasks = append(d.Tasks, scaledTask{Task: i, KeyGroups: keyGroups{t.Range.Start, t.Range.End}, Worker: t.Worker})
		}
	}
	return d
}

// placement lists which worker runs each task of operator.
func placement(a assign.Assignment, operator string) string {
	s := ""
	for _, o := range a.Operators {
		if o.Name != operator {
			continue
		}
		for i, t := range o.Tasks {
			if i > 0 {
				s += ", "
			}
			s += fmt.Sprintf("%d %s→%s", i, t.Range, t.Worker)
		}
	}
	return s
}
