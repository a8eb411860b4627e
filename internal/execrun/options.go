// Package execrun runs one operator module on a file of records, without
// NATS (`wasmstream exec`): a quick way to try a module, or to see what a
// pipeline would make of some records. The work is the engine's own
// (engine.Exec): the same key extraction, batches, failure policy, state
// and limits as a pipeline run, so the outputs, dead letters and final
// state are those a pipeline produces on the same records. This package
// only reads the records, prepares the state directory and prints.
package execrun

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/host"
)

// Options say what to run. Module and Input are required, and either
// Pipeline (with Operator) or KeyField.
type Options struct {
	// Module is the operator's .wasm file; with Pipeline it replaces the
	// operator block's module.
	Module string
	// Input is the file of records, one JSON record per line; "-" reads Stdin.
	Input string
	Stdin io.Reader
	// Pipeline is a pipeline file whose operator block (Operator) gives the
	// key, config, limits, state blocks and outputs.
	Pipeline string
	// Operator names the operator block of Pipeline; without Pipeline it is
	// the operator's name (default: the module file's name).
	Operator string
	// KeyField is the JSON field of the record key (key.json_field); with
	// Pipeline it replaces the key block.
	KeyField string
	// Config is handed to the guest's init; "@FILE" reads FILE. With
	// Pipeline it replaces the operator's config when ConfigSet.
	Config    string
	ConfigSet bool
	// Outputs are the guest's output names without Pipeline (default "out").
	Outputs []string
	// Subject is the subject the records arrive on (default the input
	// source's subject filter).
	Subject string
	// StateIn is a state directory of an earlier run to start from; it is
	// not modified (unless it is also StateOut).
	StateIn string
	// StateOut keeps the final state in this directory (new or empty, or
	// StateIn); without it the state lives in a temporary directory.
	StateOut string
	Logger   hclog.Logger
	Engine   host.Engine
	// Clock is processing time and the records' event time; default time.Now.
	Clock func() time.Time
}

// ErrUsage marks options that cannot run together or are missing.
var ErrUsage = errors.New("exec")

func (o Options) validate() error {
	switch {
	case o.Module == "":
		return fmt.Errorf("%w: give the operator's .wasm module", ErrUsage)
	case o.Input == "":
		return fmt.Errorf("%w: give the records with --input FILE (one JSON record per line, - for stdin)", ErrUsage)
	case o.Pipeline == "" && o.KeyField == "":
		return fmt.Errorf("%w: say where the record key is: --key-field FIELD, or --pipeline FILE --operator NAME to take the key block of a pipeline", ErrUsage)
	case o.Pipeline != "" && o.Operator == "":
		return fmt.Errorf("%w: --pipeline needs --operator NAME, the operator block to run", ErrUsage)
	case o.Pipeline != "" && len(o.Outputs) > 0:
		return fmt.Errorf("%w: --outputs is for runs without --pipeline; the pipeline's operator block maps its outputs", ErrUsage)
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if len(o.Outputs) == 0 {
		o.Outputs = []string{"out"}
	}
	return o
}
