package assign

import (
	"fmt"
	"strings"
	"testing"
)

// layout prints a's placement, an operator per line: "op: w0 w0 w1".
func layout(a Assignment) string {
	var b strings.Builder
	for _, o := range a.Operators {
		fmt.Fprintf(&b, "%s:", o.Name)
		for _, t := range o.Tasks {
			fmt.Fprintf(&b, " %s", t.Worker)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// printMoves prints moves, one per line: "op [0,4) w0->w1".
func printMoves(ms []Move) string {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "%s %s %s->%s\n", m.Operator, m.Range, m.From, m.To)
	}
	return b.String()
}

// mustPlan calls Plan and fails t on an error.
func mustPlan(t *testing.T, prev *Assignment, ops []Operator, workers []string, s Stamp) (Assignment, []Move) {
	t.Helper()
	next, ms, err := Plan(prev, ops, workers, s)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	return next, ms
}

// taskCounts returns how many tasks of each operator, and of all, each
// worker runs; every worker of workers is present, with 0 if idle.
func taskCounts(a Assignment, workers []string) (perOp map[string]map[string]int, total map[string]int) {
	perOp, total = map[string]map[string]int{}, map[string]int{}
	for _, w := range workers {
		total[w] = 0
	}
	for _, o := range a.Operators {
		perOp[o.Name] = map[string]int{}
		for _, w := range workers {
			perOp[o.Name][w] = 0
		}
		for _, t := range o.Tasks {
			perOp[o.Name][t.Worker]++
			total[t.Worker]++
		}
	}
	return perOp, total
}

// checkPlaced checks that a is valid, covers every operator, places tasks
// only on workers and is balanced per operator and overall.
func checkPlaced(t *testing.T, a Assignment, workers []string) {
	t.Helper()
	if err := a.Validate(); err != nil {
		t.Fatalf("invalid assignment: %v\n%s", err, layout(a))
	}
	for _, o := range a.Operators {
		if err := Covers(a, o.Name); err != nil {
			t.Fatal(err)
		}
	}
	perOp, total := taskCounts(a, workers)
	if len(total) != len(workers) {
		t.Fatalf("tasks on workers outside %v:\n%s", workers, layout(a))
	}
	for op, c := range perOp {
		if spread(c) > 1 {
			t.Fatalf("operator %s unbalanced %v:\n%s", op, c, layout(a))
		}
	}
	if spread(total) > 1 {
		t.Fatalf("unbalanced overall %v:\n%s", total, layout(a))
	}
}

// spread returns the largest count minus the smallest.
func spread(c map[string]int) int {
	lo, hi, first := 0, 0, true
	for _, n := range c {
		if first || n < lo {
			lo = n
		}
		if first || n > hi {
			hi = n
		}
		first = false
	}
	return hi - lo
}
