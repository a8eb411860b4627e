package config

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/wasmstream/wasmstream/internal/exchange"
)

// Graph is the dataflow of a pipeline: its stages in topological order and the edges between
// them. A pipeline whose operators read only sources is a graph of depth one; one whose
// operators read other operators' outputs (OPERATOR.OUTPUT in inputs) has exchange edges.
type Graph struct {
	// Stages are the sources, then the operators in topological order (every operator after
	// each operator whose output it reads; otherwise in the file's order), then the sinks.
	Stages []Stage
	// Edges are the source and exchange edges, by consumer in topological order and then in the
	// order of its inputs, then the sink edges by operator in topological order and output name.
	Edges []Edge
}

// StageKind says what a stage is.
type StageKind string

// The stage kinds.
const (
	StageSource   StageKind = "source"
	StageOperator StageKind = "operator"
	StageSink     StageKind = "sink"
)

// Stage is one node of the graph.
type Stage struct {
	Kind StageKind
	Name string
	// Parallelism and MaxParallelism are the operator's; 0 for sources and sinks.
	Parallelism, MaxParallelism int
}

// EdgeKind says how records travel along an edge.
type EdgeKind string

// The edge kinds.
const (
	// EdgeSource: a source's records to an operator, keyed by the operator's key for it.
	EdgeSource EdgeKind = "source"
	// EdgeExchange: an operator's output to another operator, re-keyed by the consumer's key
	// for it, through a key-partitioned exchange stream.
	EdgeExchange EdgeKind = "exchange"
	// EdgeRouted: a routed source's records to an operator (Source.Route): the source's router
	// publishes them into an exchange stream of the operator's, keyed by its key for it.
	EdgeRouted EdgeKind = "routed"
	// EdgeSink: an operator's output to a sink.
	EdgeSink EdgeKind = "sink"
)

// Edge is one edge of the graph.
type Edge struct {
	Kind EdgeKind
	// From is the producing stage: a source (EdgeSource) or an operator.
	From string
	// Output is the producing operator's guest output; empty for EdgeSource.
	Output string
	// To is the consuming stage: an operator, or a sink (EdgeSink).
	To string
	// Key is how the consumer keys the records of this edge; zero for EdgeSink.
	Key Key
	// Stream is the name of the exchange stream that carries an EdgeExchange
	// (internal/exchange/FORMAT.md §2); empty for the other kinds.
	Stream string
}

// HasExchangeEdges reports whether an operator of the pipeline reads another operator's output
// or a routed source (Source.Route): whether the engine carries records through exchange
// streams.
func (p *Pipeline) HasExchangeEdges() bool {
	for i := range p.Operators {
		if p.Operators[i].ReadsOperators() || p.readsRoutedSource(&p.Operators[i]) {
			return true
		}
	}
	return false
}

// readsRoutedSource reports whether op reads a source with route = true.
func (p *Pipeline) readsRoutedSource(op *Operator) bool {
	for _, in := range op.Inputs {
		if s := p.Source(in); s != nil && s.Route {
			return true
		}
	}
	return false
}

// Graph returns the pipeline's dataflow graph. It is meant for a pipeline that loaded without
// errors; references that do not resolve are left out.
func (p *Pipeline) Graph() Graph {
	var g Graph
	for _, s := range p.Sources {
		g.Stages = append(g.Stages, Stage{Kind: StageSource, Name: s.Name})
	}
	order := p.topologicalOrder()
	for _, i := range order {
		op := &p.Operators[i]
		g.Stages = append(g.Stages, Stage{Kind: StageOperator, Name: op.Name, Parallelism: op.Parallelism, MaxParallelism: op.MaxParallelism})
	}
	for _, s := range p.Sinks {
		g.Stages = append(g.Stages, Stage{Kind: StageSink, Name: s.Name})
	}
	for _, i := range order {
		g.Edges = append(g.Edges, p.inputEdges(&p.Operators[i])...)
	}
	for _, i := range order {
		op := &p.Operators[i]
		for _, out := range sortedKeys(op.Outputs) {
			if p.Sink(op.Outputs[out]) != nil {
				g.Edges = append(g.Edges, Edge{Kind: EdgeSink, From: op.Name, Output: out, To: op.Outputs[out]})
			}
		}
	}
	return g
}

// inputEdges are the edges into op, one per input that resolves.
func (p *Pipeline) inputEdges(op *Operator) []Edge {
	var out []Edge
	for _, in := range op.Inputs {
		r, ok := ParseInputRef(in)
		switch {
		case !ok:
		case !r.IsOperatorOutput() && p.Source(r.Source) != nil && p.Source(r.Source).Route:
			out = append(out, Edge{Kind: EdgeRouted, From: r.Source, To: op.Name, Key: op.KeyOf(in),
				Stream: exchange.RouteEdge(p.Name, r.Source, op.Name).StreamName()})
		case !r.IsOperatorOutput() && p.Source(r.Source) != nil:
			out = append(out, Edge{Kind: EdgeSource, From: r.Source, To: op.Name, Key: op.KeyOf(in)})
		case r.IsOperatorOutput() && p.Operator(r.Operator) != nil && p.Operator(r.Operator).HasOutput(r.Output):
			out = append(out, Edge{Kind: EdgeExchange, From: r.Operator, Output: r.Output, To: op.Name, Key: op.KeyOf(in),
				Stream: p.exchangeEdge(r, op).StreamName()})
		}
	}
	return out
}

// exchangeEdge is the exchange format's edge for input r of op.
func (p *Pipeline) exchangeEdge(r InputRef, op *Operator) exchange.Edge {
	return exchange.Edge{Pipeline: p.Name, Producer: r.Operator, Output: r.Output, Consumer: op.Name}
}

// topologicalOrder returns the operators' indexes, each after every operator whose output it
// reads, and otherwise in the file's order (Kahn's algorithm taking the first ready operator).
// Operators on a cycle, which Load refuses, come last in the file's order.
func (p *Pipeline) topologicalOrder() []int {
	producers := make([][]int, len(p.Operators))
	for i := range p.Operators {
		producers[i] = p.producersOf(&p.Operators[i])
	}
	done := make([]bool, len(p.Operators))
	var order []int
	for len(order) < len(p.Operators) {
		next := firstReady(producers, done)
		if next < 0 {
			for i := range done {
				if !done[i] {
					order, done[i] = append(order, i), true
				}
			}
			break
		}
		order, done[next] = append(order, next), true
	}
	return order
}

// firstReady is the first operator not done whose producers are all done, or -1.
func firstReady(producers [][]int, done []bool) int {
	for i, ps := range producers {
		if done[i] {
			continue
		}
		ready := true
		for _, j := range ps {
			ready = ready && done[j]
		}
		if ready {
			return i
		}
	}
	return -1
}

// producersOf returns the indexes of the operators whose outputs op reads, in input order.
func (p *Pipeline) producersOf(op *Operator) []int {
	var out []int
	for _, in := range op.Inputs {
		if r, ok := ParseInputRef(in); ok && r.IsOperatorOutput() {
			if j := p.operatorIndex(r.Operator); j >= 0 {
				out = append(out, j)
			}
		}
	}
	return out
}

func (p *Pipeline) operatorIndex(name string) int {
	for i := range p.Operators {
		if p.Operators[i].Name == name {
			return i
		}
	}
	return -1
}

// String prints the graph as text: the stages in topological order, then the edges with the
// key each consumer applies.
func (g Graph) String() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "stages (topological order):")
	for i, s := range g.Stages {
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\n", i+1, s.Kind, s.Name, s.detail())
	}
	fmt.Fprintln(tw, "edges:")
	for _, e := range g.Edges {
		fmt.Fprintf(tw, "  %s\t->\t%s\t%s\t%s\n", e.from(), e.To, e.Kind, e.detail())
	}
	_ = tw.Flush()
	lines := strings.SplitAfter(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \n")
	}
	return strings.Join(lines, "\n")
}

func (s Stage) detail() string {
	if s.Kind != StageOperator {
		return ""
	}
	return fmt.Sprintf("parallelism %d, %d key groups", s.Parallelism, s.MaxParallelism)
}

func (e Edge) from() string {
	if e.Output == "" {
		return e.From
	}
	return e.From + "." + e.Output
}

func (e Edge) detail() string {
	if e.Kind == EdgeSink {
		return ""
	}
	return "key " + e.Key.String()
}

// String describes where the key is, as the key block says it: `json_field "account"`,
// `subject_token 2` or `header "Account"`.
func (k Key) String() string {
	switch {
	case k.JSONField != "":
		return fmt.Sprintf("json_field %q", k.JSONField)
	case k.SubjectToken != 0:
		return fmt.Sprintf("subject_token %d", k.SubjectToken)
	case k.Header != "":
		return fmt.Sprintf("header %q", k.Header)
	}
	return "none"
}
