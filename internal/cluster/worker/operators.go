package worker

import (
	"encoding/json"

	"github.com/wasmstream/wasmstream/internal/cluster/assign"
	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// operatorsOf lists the pipeline's operators for the assignment.
func operatorsOf(cfg *config.Pipeline) []assign.Operator {
	ops := make([]assign.Operator, len(cfg.Operators))
	for i, oc := range cfg.Operators {
		ops[i] = assign.Operator{Name: oc.Name, MaxParallelism: oc.MaxParallelism, Parallelism: oc.Parallelism}
	}
	return ops
}

// tasksOf maps operator names to the task indices a gives worker.
func tasksOf(a assign.Assignment, worker string) map[string][]int {
	out := map[string][]int{}
	for _, r := range assign.WorkerTasks(a, worker) {
		out[r.Operator] = append(out[r.Operator], r.Task)
	}
	return out
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the wire types always encode
	}
	return b
}
