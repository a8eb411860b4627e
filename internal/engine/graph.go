package engine

import (
	"errors"

	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// ErrGraphNotRunnable is the cause of the error CheckRunnable returns: the config describes a
// dataflow graph (operators reading other operators' outputs, keys per input) that the config
// package validates but whose runtime (exchange streams between operator tasks, barrier
// alignment across producers) is not built yet.
var ErrGraphNotRunnable = errors.New("dataflow graphs are validated but not yet runnable")

// CheckRunnable refuses a pipeline that this engine would not run as written: an operator that
// reads another operator's output, keys one of its inputs with an input block, or has outputs
// for other operators only (internal_outputs). Each error is a config.Diagnostic at the
// operator's block that names the operator, the input and what to do instead; errors.Is sees
// ErrGraphNotRunnable. Open, OpenExec and the run, worker and deploy commands call it, so such
// a pipeline is refused whole rather than run in part.
func CheckRunnable(cfg *config.Pipeline) error {
	var errs []error
	for i := range cfg.Operators {
		if err := operatorRunnable(&cfg.Operators[i]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// operatorRunnable refuses one operator that the engine cannot run yet.
func operatorRunnable(oc *config.Operator) error {
	for _, in := range oc.Inputs {
		if r, ok := config.ParseInputRef(in); ok && r.IsOperatorOutput() {
			return config.Errorf(oc.Range, "operator %q: input %q is the output of operator %q: %w; "+
				"`wasmstream validate` checks and prints the graph, and until the exchange runtime lands a stage can read another's output "+
				"through a sink whose stream the next stage reads as a source", oc.Name, in, r.Operator, ErrGraphNotRunnable)
		}
	}
	for _, in := range oc.Inputs {
		if _, ok := oc.InputKeys[in]; ok {
			return config.Errorf(oc.Range, "operator %q: input %q has a key of its own (an input block): %w; "+
				"key every input with the operator's key block", oc.Name, in, ErrGraphNotRunnable)
		}
	}
	if len(oc.InternalOutputs) > 0 {
		return config.Errorf(oc.Range, "operator %q: internal_outputs %q go to other operators only: %w; "+
			"map them to sinks in outputs", oc.Name, oc.InternalOutputs, ErrGraphNotRunnable)
	}
	return nil
}
