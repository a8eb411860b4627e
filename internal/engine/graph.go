package engine

import (
	"errors"

	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// ErrGraphNotRunnable is the cause of the error CheckRunnable returns: the config describes a
// dataflow graph (operators reading other operators' outputs, keys per input) that one process
// runs (Open without a cluster: `wasmstream run`), but a cluster's workers and exec do not yet.
var ErrGraphNotRunnable = errors.New("dataflow graphs are not yet runnable here")

// Runner says who would run a pipeline that CheckRunnable checks.
type Runner int

// The runners.
const (
	// InOneProcess: Open without Options.Cluster (`wasmstream run`). It runs graphs: their
	// edges go through exchange streams (internal/exchange/FORMAT.md).
	InOneProcess Runner = iota
	// InCluster: a cluster's workers (`wasmstream worker`, `deploy`). Their exchange runtime
	// (edges across workers, rescales of a consumer) is not built yet.
	InCluster
)

// CheckRunnable refuses a pipeline that runner would not run as written. One process runs
// every pipeline the config package accepts; a cluster refuses an operator that reads another
// operator's output, keys one of its inputs with an input block, or has outputs for other
// operators only (internal_outputs). Each error is a config.Diagnostic at the operator's block
// that names the operator, the input and what to do instead; errors.Is sees
// ErrGraphNotRunnable. Open and the run, worker and deploy commands call it, so such a
// pipeline is refused whole rather than run in part.
func CheckRunnable(cfg *config.Pipeline, runner Runner) error {
	if runner == InOneProcess {
		return nil
	}
	var errs []error
	for i := range cfg.Operators {
		if err := operatorRunnable(&cfg.Operators[i], "in a cluster; graphs run in one process for now (wasmstream run)"); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// RefusedInCluster names the operators that a cluster's workers refuse (CheckRunnable with
// InCluster), in the file's order.
func RefusedInCluster(cfg *config.Pipeline) []string {
	var names []string
	for i := range cfg.Operators {
		if operatorRunnable(&cfg.Operators[i], "") != nil {
			names = append(names, cfg.Operators[i].Name)
		}
	}
	return names
}

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

// runnerOf is who runs a pipeline opened with opts.
func runnerOf(opts Options) Runner {
	if opts.Cluster != nil {
		return InCluster
	}
	return InOneProcess
}
