package config

import (
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/wasmstream/wasmstream/internal/exchange"
)

// checkInput checks that one input of op names a declared source, or an output that another
// declared operator declares.
func (d *decoder) checkInput(p *Pipeline, op *Operator, in string, at hcl.Range) {
	r, ok := ParseInputRef(in)
	switch {
	case !ok: // already reported
	case !r.IsOperatorOutput() && p.Source(in) != nil:
	case !r.IsOperatorOutput() && p.Operator(in) != nil:
		d.errorf(at, "operator %q: inputs: %q is an operator, not a source; to read its output write OPERATOR.OUTPUT, e.g. %q (its outputs: %s)",
			op.Name, in, in+"."+firstOr(p.Operator(in).OutputNames(), "out"), outputList(p.Operator(in)))
	case !r.IsOperatorOutput():
		d.errorf(at, "operator %q: inputs: unknown source %q; declared sources: %s",
			op.Name, in, names(p.Sources, sourceName, "none, add a source block"))
	case r.Operator == op.Name: // a cycle of one: checkCycles reports it
	case p.Operator(r.Operator) == nil:
		d.errorf(at, "operator %q: inputs: %q names unknown operator %q; declared operators: %s",
			op.Name, in, r.Operator, names(p.Operators, operatorName, "none"))
	case !p.Operator(r.Operator).HasOutput(r.Output):
		d.errorf(at, "operator %q: inputs: operator %q has no output %q; its outputs: %s (declare it in its outputs, or in internal_outputs when no sink takes it)",
			op.Name, r.Operator, r.Output, outputList(p.Operator(r.Operator)))
	case validPipelineName(p.Name) && p.exchangeEdge(r, op).Validate() != nil:
		d.errorf(at, "operator %q: inputs: %q: %v", op.Name, in, p.exchangeEdge(r, op).Validate())
	case op.KeyOf(in).SubjectToken != 0:
		d.errorf(at, "operator %q: inputs: %q is keyed by subject_token %d, but an operator's output has no subject of its own (it travels on the exchange's subjects); "+
			"key it by json_field, or by header (the key the producer emitted is in header %q), in an input block for it",
			op.Name, in, op.KeyOf(in).SubjectToken, exchange.HeaderKey)
	}
}

// checkCycles refuses operators that read their own output, directly or through others: records
// would circulate for ever and no checkpoint barrier could pass. Each cycle is reported at the
// input that closes it, with its path in the direction records flow.
func (d *decoder) checkCycles(p *Pipeline) {
	consumers := consumersByProducer(p)
	color := make([]int, len(p.Operators)) // 0 new, 1 on the path, 2 done
	var path []int
	var visit func(u int)
	visit = func(u int) {
		color[u] = 1
		path = append(path, u)
		for _, c := range consumers[u] {
			switch color[c.op] {
			case 0:
				visit(c.op)
			case 1:
				d.reportCycle(p, path, c)
			}
		}
		path = path[:len(path)-1]
		color[u] = 2
	}
	for i := range p.Operators {
		if color[i] == 0 {
			visit(i)
		}
	}
}

// consumer is one input (index in) of operator op that reads another operator's output.
type consumer struct{ op, in int }

// consumersByProducer lists, for each operator, the inputs of operators that read its outputs,
// in the file's order.
func consumersByProducer(p *Pipeline) [][]consumer {
	out := make([][]consumer, len(p.Operators))
	for i, op := range p.Operators {
		for k, in := range op.Inputs {
			if r, ok := ParseInputRef(in); ok && r.IsOperatorOutput() {
				if j := p.operatorIndex(r.Operator); j >= 0 {
					out[j] = append(out[j], consumer{op: i, in: k})
				}
			}
		}
	}
	return out
}

// reportCycle reports the cycle that input c closes: it reads the output of the last operator on
// path, on which c's operator already is.
func (d *decoder) reportCycle(p *Pipeline, path []int, c consumer) {
	start := 0
	for path[start] != c.op {
		start++
	}
	hops := make([]string, 0, len(path)-start+1)
	for _, i := range path[start:] {
		hops = append(hops, p.Operators[i].Name)
	}
	hops = append(hops, p.Operators[c.op].Name)
	op := &p.Operators[c.op]
	d.errorf(d.at.inputs[c.op][c.in], "operator %q: inputs: %q closes a cycle %s; an operator cannot read its own output, directly or through other operators, so remove one of these inputs",
		op.Name, op.Inputs[c.in], strings.Join(hops, " -> "))
}

// checkStageNames refuses, in a pipeline whose operators read each other, an operator named like
// a source: the graph, its exchange streams and its metrics name stages by name alone.
func (d *decoder) checkStageNames(p *Pipeline) {
	if !p.HasExchangeEdges() {
		return
	}
	for _, op := range p.Operators {
		if s := p.Source(op.Name); s != nil {
			d.errorf(op.Range, "operator %q: has the name of source %q (%s); in a pipeline whose operators read other operators' outputs every stage needs a name of its own, so rename one",
				op.Name, s.Name, Pos(s.Range))
		}
	}
}

// outputList lists an operator's declared outputs for a message.
func outputList(op *Operator) string {
	if names := op.OutputNames(); len(names) > 0 {
		return strings.Join(names, ", ")
	}
	return "none"
}

func firstOr(list []string, def string) string {
	if len(list) == 0 {
		return def
	}
	return list[0]
}

// checkExchangeSubjects refuses, in a pipeline whose operators read each other, a declared
// stream or a sink subject in the subjects of the pipeline's exchange streams
// (internal/exchange/FORMAT.md §2): JetStream gives a subject to one stream only, and a sink
// publishing there would slip records, or forged barrier markers, between the operators.
func (d *decoder) checkExchangeSubjects(p *Pipeline) {
	if !p.HasExchangeEdges() || !validPipelineName(p.Name) {
		return
	}
	space := exchange.SubjectRoot + "." + p.Name + ".>"
	for j, st := range p.Streams {
		for k, subj := range st.Subjects {
			if acceptableStreamSubject(subj) && subjectsCollide(subj, space) {
				d.errorf(d.at.streamSubjects[j][k], "stream %q: subjects: %q overlaps %q, the subjects of the exchange streams between this pipeline's operators; "+
					"a subject can belong to one stream only, so remove it or narrow it", st.Name, subj, space)
			}
		}
	}
	for i, s := range p.Sinks {
		if validSubject(s.Subject) && subjectsCollide(s.Subject, space) {
			d.errorf(d.at.sinkSubject[i], "sink %q: subject: %q is in %q, where the engine carries records and checkpoint barriers between this pipeline's operators; publish elsewhere",
				s.Name, s.Subject, space)
		}
	}
}
