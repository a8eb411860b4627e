package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// InputRef is what one entry of an operator's inputs names: a source, or an output of another
// operator (written OPERATOR.OUTPUT). Exactly one of Source and Operator is set.
type InputRef struct {
	Source string
	// Operator and Output name another operator's guest output: an edge between operators,
	// carried by an exchange stream.
	Operator, Output string
}

// IsOperatorOutput reports whether the input is another operator's output.
func (r InputRef) IsOperatorOutput() bool { return r.Operator != "" }

// String returns the input as written in the config.
func (r InputRef) String() string {
	if r.IsOperatorOutput() {
		return r.Operator + "." + r.Output
	}
	return r.Source
}

// ParseInputRef reads one entry of an operator's inputs. A name without a dot is a source; a
// name with a dot is OPERATOR.OUTPUT, split at the first dot (names of operators cannot hold
// one, so the split is unambiguous). ok is false when neither form fits.
func ParseInputRef(s string) (r InputRef, ok bool) {
	op, out, dotted := strings.Cut(s, ".")
	switch {
	case !dotted:
		return InputRef{Source: s}, validObjectName(s)
	case !validObjectName(op) || out == "":
		return InputRef{}, false
	}
	return InputRef{Operator: op, Output: out}, true
}

// KeyOf returns the key of an input: its own from an input block, or the operator's.
func (o *Operator) KeyOf(input string) Key {
	if k, ok := o.InputKeys[input]; ok {
		return k
	}
	return o.Key
}

// HasOutput reports whether the guest output name is declared, in outputs or internal_outputs.
func (o *Operator) HasOutput(name string) bool {
	_, ok := o.Outputs[name]
	return ok || slices.Contains(o.InternalOutputs, name)
}

// OutputNames lists the declared guest outputs: outputs (sorted) then internal_outputs.
func (o *Operator) OutputNames() []string {
	return append(sortedKeys(o.Outputs), o.InternalOutputs...)
}

// ReadsOperators reports whether an input of the operator is another operator's output.
func (o *Operator) ReadsOperators() bool {
	for _, in := range o.Inputs {
		if r, ok := ParseInputRef(in); ok && r.IsOperatorOutput() {
			return true
		}
	}
	return false
}

// inputBlocks reads the operator's `input "NAME" { key { ... } }` blocks: a key of the input's
// own, which re-keys another operator's output or keys a source differently from the others.
func (d *decoder) inputBlocks(blocks hcl.Blocks, owner string, inputs []string) (map[string]Key, map[string]hcl.Range) {
	var keys map[string]Key
	ranges := map[string]hcl.Range{}
	for _, b := range blocks {
		if b.Type != "input" {
			continue
		}
		name, inOwner := b.Labels[0], fmt.Sprintf("%s: input %q", owner, b.Labels[0])
		k, ok := d.inputKey(b, inOwner)
		switch {
		case !slices.Contains(inputs, name):
			d.errorf(b.LabelRanges[0], "%s: not in inputs (%s); add it to inputs or remove this block", inOwner, strings.Join(inputs, ", "))
		case ranges[name] != (hcl.Range{}):
			d.errorf(b.DefRange, "%s: declared twice (first at %s); merge them", inOwner, Pos(ranges[name]))
		case ok:
			if keys == nil {
				keys = map[string]Key{}
			}
			keys[name], ranges[name] = k, b.DefRange
		default:
			ranges[name] = b.DefRange
		}
	}
	return keys, ranges
}

// inputKey reads the one key block of an input block.
func (d *decoder) inputKey(b *hcl.Block, owner string) (Key, bool) {
	_, blocks := d.body(b, inputSchema, owner)
	if len(blocks) == 0 {
		d.errorf(b.DefRange, "%s: key block is required; add e.g. key { json_field = \"customer\" }, or remove the input block to use the operator's key", owner)
		return Key{}, false
	}
	for _, extra := range blocks[1:] {
		d.errorf(extra.DefRange, "%s: key: only one key block is allowed; remove this one", owner)
	}
	return d.decodeKey(blocks[0], owner), true
}

// internalOutputs reads the guest outputs that only other operators read.
func internalOutputs(a *attrs) ([]string, map[string]hcl.Range) {
	names, ranges, st := a.strList("internal_outputs", "")
	if st != present {
		return nil, nil
	}
	var out []string
	at := map[string]hcl.Range{}
	for i, n := range names {
		switch {
		case n == "":
			a.errorAt(ranges[i], "internal_outputs", "an output name must not be empty; use the name the guest emits to")
		case at[n] != (hcl.Range{}):
			a.errorAt(ranges[i], "internal_outputs", "%q is listed twice; remove one", n)
		default:
			out, at[n] = append(out, n), ranges[i]
		}
	}
	return out, at
}

// checkOutputNames refuses an output declared both for a sink and as internal: a sink output can
// be read by other operators as it is.
func checkOutputNames(a *attrs, outputs map[string]string, internal []string, at map[string]hcl.Range) {
	for _, n := range internal {
		if _, ok := outputs[n]; ok && n != "" {
			a.errorAt(at[n], "internal_outputs", "%q is also in outputs; other operators can read an output that goes to a sink, so remove it from internal_outputs", n)
		}
	}
}
