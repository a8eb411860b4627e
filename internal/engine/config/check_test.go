package config

import (
	"strings"
	"testing"
)

// operatorBlock is a valid operator reading in and writing out, to keep the cases short.
const operatorBlock = `
operator "o" {
  module  = "o.wasm"
  inputs  = ["in"]
  key {
    json_field = "id"
  }
  outputs = { out = "out" }
}
`

// TestCrossChecks covers the rules between blocks that the golden files do not isolate. Each
// case lists every diagnostic expected, so an extra warning fails too.
func TestCrossChecks(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "with a server url an undeclared stream is assumed to exist, and sinks are not checked",
			src: `name = "p"
server {
  url = "nats://h:4222"
}
source "in" {
  stream = "ELSEWHERE"
}
sink "out" {
  subject = "anything.x"
}` + operatorBlock,
		},
		{
			name: "without a url an undeclared stream is an error",
			src: `name = "p"
source "in" {
  stream = "ELSEWHERE"
}
sink "out" {
  subject = "anything.x"
}` + operatorBlock,
			want: []string{`p.hcl:3:12: source "in": stream: unknown stream "ELSEWHERE"; declared streams: none (declare it in a stream block, or set server.url to read a stream that exists on that server)`},
		},
		{
			name: "a filter that overlaps the stream's subjects is accepted",
			src: `name = "p"
stream "S" {
  subjects = ["in.*", "out.>"]
}
source "in" {
  stream  = "S"
  subject = "in.>"
}
sink "out" {
  subject = "out.x"
}` + operatorBlock,
		},
		{
			name: "a sink outside every declared stream is a warning, with a hint when a server url is set",
			src: `name = "p"
server {
  url = "nats://h:4222"
}
stream "S" {
  subjects = ["in.>"]
}
source "in" {
  stream = "S"
}
sink "out" {
  subject = "out.x"
}` + operatorBlock,
			want: []string{`p.hcl:12:13: warning: sink "out": subject: no declared stream captures "out.x", so its messages are not stored unless a stream on the server captures it; add the subject to a stream's subjects`},
		},
		{
			name: "no source and no sink declared",
			src:  `name = "p"` + operatorBlock,
			want: []string{
				`p.hcl:4:14: operator "o": inputs: unknown source "in"; declared sources: none, add a source block`,
				`p.hcl:8:21: operator "o": outputs: out: unknown sink "out"; declared sinks: none, add a sink block`,
			},
		},
		{
			name: "an output map built by an expression is checked, at the whole value",
			src: `name = "p"
server {
  url = "nats://h:4222"
}
source "in" {
  stream = "S"
}
operator "o" {
  module  = "o.wasm"
  inputs  = ["in"]
  key {
    json_field = "id"
  }
  outputs = { for k in ["out"] : k => "missing" }
}`,
			want: []string{`p.hcl:14:13: operator "o": outputs: out: unknown sink "missing"; declared sinks: none, add a sink block`},
		},
		{
			name: "a declared stream may not capture the engine's dead-letter subjects, even with a server url",
			src: `name = "p"
server {
  url = "nats://h:4222"
}
stream "S" {
  subjects = ["in.>", "out.x", "wasmstream.dlq.p.>"]
}
stream "ALL" {
  subjects = ["wasmstream.*.*.o"]
}
source "in" {
  stream  = "S"
  subject = "in.>"
}
sink "out" {
  subject = "out.x"
}` + operatorBlock,
			want: []string{
				`p.hcl:6:32: stream "S": subjects: "wasmstream.dlq.p.>" overlaps "wasmstream.dlq.>", which the engine's own stream WASMSTREAM_DLQ captures: dead letters go to WASMSTREAM_DLQ, and a subject can belong to one stream only; remove this subject (dead letters stay readable in WASMSTREAM_DLQ), or, to keep an operator's dead letters in this stream, set the operator's dead_letter_subject to a subject outside wasmstream.dlq.> that the stream captures`,
				`p.hcl:9:15: stream "ALL": subjects: "wasmstream.*.*.o" overlaps "wasmstream.dlq.>", which the engine's own stream WASMSTREAM_DLQ captures: dead letters go to WASMSTREAM_DLQ, and a subject can belong to one stream only; remove this subject (dead letters stay readable in WASMSTREAM_DLQ), or, to keep an operator's dead letters in this stream, set the operator's dead_letter_subject to a subject outside wasmstream.dlq.> that the stream captures`,
			},
		},
		{
			name: "subjects beside the dead-letter space are accepted",
			src: `name = "p"
stream "S" {
  subjects = ["in.>", "out.x", "wasmstream.*", "wasmstream.other.>", "dlq.>"]
}
source "in" {
  stream  = "S"
  subject = "in.>"
}
sink "out" {
  subject = "out.x"
}` + operatorBlock,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags, _ := Parse([]byte(tc.src), "p.hcl")
			got := diags.Error()
			if want := strings.Join(tc.want, "\n"); got != want {
				t.Errorf("diagnostics\n%s\nwant\n%s", got, want)
			}
		})
	}
}
