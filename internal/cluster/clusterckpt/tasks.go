package clusterckpt

import (
	"slices"

	"github.com/wasmstream/wasmstream/internal/cluster/global"
)

// Task is one task part of a manifest with the worker that uploaded its
// task checkpoint.
type Task struct {
	global.TaskPart
	// Worker is the worker whose object name (global.TaskObject) the part
	// references; "" when it is none of the manifest's workers'.
	Worker string
}

// Tasks returns the task parts of operator op, in manifest order, with
// their workers.
func Tasks(m global.Manifest, op string) []Task {
	start := map[string]int{} // a task checkpoint's object → its first key group
	for _, p := range m.Tasks {
		if s, ok := start[p.Object]; !ok || p.Entry.Start < s {
			start[p.Object] = p.Entry.Start
		}
	}
	var out []Task
	for _, p := range m.Tasks {
		if p.Operator != op {
			continue
		}
		t := Task{TaskPart: p}
		for _, w := range m.Workers {
			if global.TaskObject(m.ID(), m.Generation, m.Assignment, w, op, start[p.Object]) == p.Object {
				t.Worker = w
			}
		}
		out = append(out, t)
	}
	return out
}

// TaskCheckpoints counts the task checkpoints of m: one per object, since
// the parts of a split task entry share theirs.
func TaskCheckpoints(m global.Manifest) int {
	objects := make([]string, 0, len(m.Tasks))
	for _, p := range m.Tasks {
		objects = append(objects, p.Object)
	}
	slices.Sort(objects)
	return len(slices.Compact(objects))
}

// allTasks returns every task index of every operator of m.
func allTasks(m global.Manifest) map[string][]int {
	out := map[string][]int{}
	for _, p := range m.Tasks {
		if !slices.Contains(out[p.Operator], p.Index) {
			out[p.Operator] = append(out[p.Operator], p.Index)
		}
	}
	return out
}
