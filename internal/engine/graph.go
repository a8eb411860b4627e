package engine

import (
	"errors"

	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// ErrGraphNotRunnable is the cause of the error OpenExec returns for an operator of a dataflow
// graph (one reading another operator's output, keying an input with an input block, or feeding
// other operators only): exec feeds one operator records of its own and has no exchange.
var ErrGraphNotRunnable = errors.New("dataflow graphs are not runnable here")

// operatorRunnable refuses one operator that reads or feeds other operators, or keys an input
// of its own; where says who cannot run it and what runs it instead.
func operatorRunnable(oc *config.Operator, where string) error {
	for _, in := range oc.Inputs {
		if r, ok := config.ParseInputRef(in); ok && r.IsOperatorOutput() {
			return config.Errorf(oc.Range, "operator %q: input %q is the output of operator %q: %w %s; "+
				"`wasmstream validate` checks and prints the graph", oc.Name, in, r.Operator, ErrGraphNotRunnable, where)
		}
	}
	for _, in := range oc.Inputs {
		if _, ok := oc.InputKeys[in]; ok {
			return config.Errorf(oc.Range, "operator %q: input %q has a key of its own (an input block): %w %s; "+
				"or key every input with the operator's key block", oc.Name, in, ErrGraphNotRunnable, where)
		}
	}
	if len(oc.InternalOutputs) > 0 {
		return config.Errorf(oc.Range, "operator %q: internal_outputs %q go to other operators only: %w %s; "+
			"or map them to sinks in outputs", oc.Name, oc.InternalOutputs, ErrGraphNotRunnable, where)
	}
	return nil
}
