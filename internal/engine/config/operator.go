package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/wasmstream/wasmstream/internal/modref"
)

// addOperator reads an operator block and appends it unless its name is taken. Whether its
// inputs and outputs name declared objects is checked once every block is read.
func (d *decoder) addOperator(p *Pipeline, b *hcl.Block) {
	owner := fmt.Sprintf("operator %q", b.Labels[0])
	a, blocks := d.body(b, operatorSchema, owner)
	d.checkObjectName(b, owner)
	op := Operator{Name: b.Labels[0], Range: b.DefRange}
	var inputKeyRanges map[string]hcl.Range
	op.Module, op.ModuleRef, op.ModuleRange = d.module(a)
	op.StateVersion = stateVersion(a)
	inputs, inputRanges := operatorInputs(a)
	op.Inputs = inputs
	op.Parallelism, op.MaxParallelism = parallelism(a)
	op.Config = d.guestConfig(a)
	internal, internalRanges := internalOutputs(a)
	op.InternalOutputs = internal
	outputs, outputRanges := operatorOutputs(a, len(op.InternalOutputs) > 0)
	op.Outputs = outputs
	checkOutputNames(a, op.Outputs, op.InternalOutputs, internalRanges)
	op.DeadLetterSubject = deadLetterSubject(a, defaultDeadLetterSubject(p.Name, op.Name))
	op.InputKeys, inputKeyRanges = d.inputBlocks(blocks, owner, op.Inputs)
	op.Key, op.Limits = d.operatorBlocks(b, blocks, owner, len(op.InputKeys) > 0 && len(op.InputKeys) == len(op.Inputs))
	op.States = d.decodeStates(blocks, owner)
	if d.declare(b) {
		p.Operators = append(p.Operators, op)
		d.at.inputs = append(d.at.inputs, inputRanges)
		d.at.outputs = append(d.at.outputs, outputRanges)
		d.at.internalOutputs = append(d.at.internalOutputs, internalRanges)
		d.at.inputKeys = append(d.at.inputKeys, inputKeyRanges)
		d.at.deadLetter = append(d.at.deadLetter, a.rng("dead_letter_subject"))
	}
}

// module returns the module's absolute path, or, for a registry reference (NAME or
// NAME@HASH, see modref.ParseRef), the reference with an empty path; and the range of its
// value.
func (d *decoder) module(a *attrs) (path, ref string, rng hcl.Range) {
	module, st := a.str("module")
	switch {
	case st == absent:
		a.missing("module", "give the path of the operator's .wasm file, relative to the config file, or a registry name (NAME or NAME@HASH)")
	case st == present && module == "":
		a.errorf("module", "must not be empty; give the path of the operator's .wasm file, relative to the config file, or a registry name")
	}
	if module == "" {
		return "", "", a.rng("module")
	}
	r, err := modref.ParseRef(module)
	switch {
	case err != nil:
		a.errorf("module", "%v", err)
		return "", "", a.rng("module")
	case !r.IsLocal():
		return "", module, a.rng("module")
	}
	return resolve(d.dir, module), "", a.rng("module")
}

// operatorInputs reads what an operator reads: source names, and outputs of other operators
// written OPERATOR.OUTPUT. Whether they exist is checked once every block is read.
func operatorInputs(a *attrs) ([]string, []hcl.Range) {
	inputs, ranges, st := a.strList("inputs", "")
	switch {
	case st == absent:
		a.missing("inputs", `list the sources it reads, e.g. inputs = ["payments"], or outputs of other operators, e.g. inputs = ["enrich.out"]`)
	case st == present && len(inputs) == 0:
		a.errorf("inputs", `must name at least one source, e.g. ["payments"], or another operator's output, e.g. ["enrich.out"]`)
	}
	seen := map[string]bool{}
	for i, in := range inputs {
		if _, ok := ParseInputRef(in); !ok {
			a.errorAt(ranges[i], "inputs", "%q is neither a source name nor OPERATOR.OUTPUT; name a source (letters, digits, '_' and '-') or another operator's output, e.g. \"enrich.out\"", in)
		}
		if seen[in] {
			a.errorAt(ranges[i], "inputs", "%q is listed twice; remove one", in)
		}
		seen[in] = true
	}
	return inputs, ranges
}

// parallelism reads parallelism and max_parallelism. max_parallelism is the number of key groups,
// so parallelism cannot exceed it: a task owns at least one key group.
func parallelism(a *attrs) (int, int) {
	maxPar := int(a.integer("max_parallelism", 1, maxMaxParallelism, DefaultMaxParallelism))
	par := int(a.integer("parallelism", 1, maxMaxParallelism, DefaultParallelism))
	if par > maxPar {
		a.errorf("parallelism", "%d exceeds max_parallelism %d; lower parallelism or raise max_parallelism", par, maxPar)
	}
	return par, maxPar
}

// guestConfig reads the bytes handed to the guest's init, from config or config_file.
func (d *decoder) guestConfig(a *attrs) []byte {
	var out []byte
	v, inline := a.value("config", cty.String, "a string", "; to pass structured settings write config = jsonencode({ ... })")
	if inline == present {
		out = []byte(v.AsString())
	}
	name, fromFile := a.str("config_file")
	switch {
	case fromFile != present:
	case inline != absent:
		a.errorf("config_file", "config and config_file are alternatives; keep only one")
	default:
		out = d.readConfigFile(a, name)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// readConfigFile reads config_file now, so that a missing file stops the load with its position
// rather than a task at run time.
func (d *decoder) readConfigFile(a *attrs, name string) []byte {
	b, err := readFile(d.dir, name)
	if err != nil {
		d.add(Diagnostic{Severity: SeverityError, Message: a.label("config_file") + err.Error(), Range: a.rng("config_file"), Err: err})
	}
	return b
}

// operatorOutputs reads the map from guest output names to sink names. It may be left out when
// the operator has internal outputs (read only by other operators).
func operatorOutputs(a *attrs, internal bool) (map[string]string, map[string]hcl.Range) {
	outputs, ranges, st := a.strMap("outputs", `; write e.g. outputs = { out = "risk-totals" }`)
	switch {
	case st == absent && !internal:
		a.missing("outputs", `map each guest output to a sink, e.g. outputs = { out = "risk-totals" }, or list the outputs other operators read in internal_outputs`)
	case st == present && len(outputs) == 0 && !internal:
		a.errorf("outputs", `must map at least one guest output to a sink, e.g. { out = "risk-totals" }`)
	}
	if _, empty := outputs[""]; empty {
		a.errorAt(ranges[""], "outputs", "an output name must not be empty; use the name the guest emits to")
	}
	return outputs, ranges
}

// deadLetterSubject reads where records that fault deterministically are published.
func deadLetterSubject(a *attrs, def string) string {
	s, st := a.str("dead_letter_subject")
	switch {
	case st != present:
		return def
	case !validSubject(s):
		a.errorf("dead_letter_subject", "%q %s", s, subjectRule)
	case hasWildcard(s):
		a.errorf("dead_letter_subject", "%q contains a wildcard; dead letters are published to one literal subject such as %q", s, def)
	}
	return s
}
