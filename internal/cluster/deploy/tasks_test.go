package deploy

import (
	"fmt"
	"testing"

	"github.com/wasmstream/wasmstream/checkpoint"
)

// entries returns task entries with the given range ends, from 0.
func entries(ends ...int) []checkpoint.TaskEntry {
	var out []checkpoint.TaskEntry
	start := 0
	for _, end := range ends {
		out = append(out, checkpoint.TaskEntry{KeyGroupRange: checkpoint.KeyGroupRange{Start: start, End: end}})
		start = end
	}
	return out
}

// layout prints tasks as "index:[start,end)xN" with N entries.
func layout(tasks []runTask) string {
	s := ""
	for _, t := range tasks {
		s += fmt.Sprintf("%d:%sx%d ", t.index, t.r, len(t.entries))
	}
	return s
}

func TestRunTasks(t *testing.T) {
	for _, tc := range []struct {
		name        string
		ends        []int
		parallelism int // from the savepoint's config; 0 when it did not parse
		want        string
	}{
		{"one entry per task", []int{32, 64, 96, 128}, 4, "0:[0,32)x1 1:[32,64)x1 2:[64,96)x1 3:[96,128)x1 "},
		{"no config: one task per entry", []int{32, 64, 96, 128}, 0, "0:[0,32)x1 1:[32,64)x1 2:[64,96)x1 3:[96,128)x1 "},
		{"split entries grouped by the config's tasks", []int{10, 32, 64, 96, 100, 128}, 4, "0:[0,32)x2 1:[32,64)x1 2:[64,96)x1 3:[96,128)x2 "},
		{"split on another run's boundaries: the config's", []int{32, 64, 96, 128}, 2, "0:[0,64)x2 1:[64,128)x2 "},
		{"a config that does not fit is not used", []int{10, 42, 85, 128}, 2, "0:[0,42)x2 1:[42,85)x1 2:[85,128)x1 "},
		{"no config, splits: the largest parallelism that fits", []int{10, 42, 64, 100, 128}, 0, "0:[0,64)x3 1:[64,128)x2 "},
		{"a parallelism above the entries' is no fit", []int{64, 128}, 4, "0:[0,64)x1 1:[64,128)x1 "},
		{"one entry", []int{128}, 0, "0:[0,128)x1 "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			op := checkpoint.OperatorEntry{Name: "op", MaxParallelism: 128, Tasks: entries(tc.ends...)}
			if got := layout(runTasks(op, tc.parallelism)); got != tc.want {
				t.Fatalf("runTasks: %s, want %s", got, tc.want)
			}
		})
	}
}
