package worker

import (
	"errors"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/cluster/assign"
	"github.com/wasmstream/wasmstream/internal/cluster/global"
)

// A round whose acks lack an operator of the assignment (every task of it failed to start,
// while the workers acked with their other tasks) is not completed: its checkpoint would be the
// one the operator's tasks restore from next, which they could not (a graph's middle stage once
// stayed down for good that way).
func TestCoversEveryOperator(t *testing.T) {
	a := assign.Assignment{Operators: []assign.OperatorTasks{{Name: "mid"}, {Name: "pre"}, {Name: "sum"}}}
	m := global.Manifest{Checkpoint: checkpoint.Manifest{ID: 7, Operators: []checkpoint.OperatorEntry{{Name: "pre"}, {Name: "sum"}}}}
	err := coversEveryOperator(m, a)
	if !errors.Is(err, global.ErrNotCovered) || !strings.Contains(err.Error(), `operator "mid" has no task in checkpoint 7`) {
		t.Fatalf("err = %v, want ErrNotCovered naming operator mid", err)
	}
	m.Checkpoint.Operators = append(m.Checkpoint.Operators, checkpoint.OperatorEntry{Name: "mid"})
	if err := coversEveryOperator(m, a); err != nil {
		t.Fatalf("every operator present: %v", err)
	}
}
