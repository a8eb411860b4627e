package main

import (
	"fmt"
	"io"

	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// printGraph prints the dataflow graph of a pipeline whose operators read other operators'
// outputs, indented under the summary line.
func printGraph(out io.Writer, g config.Graph) {
	fmt.Fprintln(out, "  graph:")
	for _, line := range nonEmptyLines(g.String()) {
		fmt.Fprintf(out, "    %s\n", line)
	}
}

// graphJSON is the "graph" of validate --json (docs/cli.md): the stages in topological order and
// the edges, as the text prints them.
type graphJSON struct {
	Stages []stageJSON `json:"stages"`
	Edges  []edgeJSON  `json:"edges"`
}

type stageJSON struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Parallelism and MaxParallelism are an operator's; left out for sources and sinks.
	Parallelism    int `json:"parallelism,omitempty"`
	MaxParallelism int `json:"max_parallelism,omitempty"`
}

type edgeJSON struct {
	Kind   string `json:"kind"`
	From   string `json:"from"`
	Output string `json:"output,omitempty"`
	To     string `json:"to"`
	// Key is how the consumer keys the edge's records; left out for sink edges.
	Key *keyJSON `json:"key,omitempty"`
	// Stream is the exchange stream of an exchange edge; left out for the others.
	Stream string `json:"stream,omitempty"`
}

// keyJSON has exactly one field, as the key block.
type keyJSON struct {
	JSONField    string `json:"json_field,omitempty"`
	SubjectToken int    `json:"subject_token,omitempty"`
	Header       string `json:"header,omitempty"`
}

func toGraphJSON(g config.Graph) graphJSON {
	out := graphJSON{Stages: []stageJSON{}, Edges: []edgeJSON{}}
	for _, s := range g.Stages {
		out.Stages = append(out.Stages, stageJSON{Kind: string(s.Kind), Name: s.Name, Parallelism: s.Parallelism, MaxParallelism: s.MaxParallelism})
	}
	for _, e := range g.Edges {
		j := edgeJSON{Kind: string(e.Kind), From: e.From, Output: e.Output, To: e.To, Stream: e.Stream}
		if e.Kind != config.EdgeSink {
			j.Key = &keyJSON{JSONField: e.Key.JSONField, SubjectToken: e.Key.SubjectToken, Header: e.Key.Header}
		}
		out.Edges = append(out.Edges, j)
	}
	return out
}
