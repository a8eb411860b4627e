package config

import (
	"slices"
	"strings"
)

// check runs the cross-checks between blocks, once every block has been read.
func (d *decoder) check(p *Pipeline) {
	d.checkStreamOverlaps(p)
	d.checkReplicas(p)
	d.checkCluster(p)
	d.checkSources(p)
	d.checkOperators(p)
	d.checkCycles(p)
	d.checkStageNames(p)
	d.checkExchangeSubjects(p)
	d.checkSinks(p)
	d.checkDeadLetterSubjects(p)
	d.checkUnused(p)
	if len(p.Operators) == 0 {
		d.errorf(d.fileStart(), "the pipeline declares no operator; add an operator block that reads a source and writes to a sink")
	}
}

// checkStreamOverlaps refuses two streams capturing a common subject: JetStream gives a subject
// to one stream only and would refuse to create the second.
func (d *decoder) checkStreamOverlaps(p *Pipeline) {
	for j := range p.Streams {
		for k, subj := range p.Streams[j].Subjects {
			if !acceptableStreamSubject(subj) {
				continue // already reported; overlaps with it would only add noise
			}
			if i, m, ok := earlierOverlap(p, j, subj); ok {
				d.errorf(d.at.streamSubjects[j][k], "stream %q: subjects: %q overlaps %q of stream %q (%s); a subject can belong to one stream only, so make them disjoint",
					p.Streams[j].Name, subj, p.Streams[i].Subjects[m], p.Streams[i].Name, Pos(d.at.streamSubjects[i][m]))
			}
		}
	}
}

// checkReplicas refuses replicated streams on the embedded server: it is one node, and
// JetStream refuses to create a stream with more replicas than servers.
func (d *decoder) checkReplicas(p *Pipeline) {
	if p.Server.URL != "" {
		return
	}
	for _, s := range p.Streams {
		if s.Replicas > 1 {
			d.errorf(s.Range, "stream %q: replicas = %d needs a JetStream cluster, but the embedded server is one node; "+
				"set server.url to the cluster's servers, or remove replicas", s.Name, s.Replicas)
		}
	}
}

// earlierOverlap finds subject m of a stream i declared before stream j that collides with subj.
func earlierOverlap(p *Pipeline, j int, subj string) (i, m int, ok bool) {
	for i := range j {
		for m, s := range p.Streams[i].Subjects {
			if acceptableStreamSubject(s) && subjectsCollide(subj, s) {
				return i, m, true
			}
		}
	}
	return 0, 0, false
}

// checkSources checks that each source reads a stream that will exist and that its subject
// filter can match something in it.
func (d *decoder) checkSources(p *Pipeline) {
	for i, s := range p.Sources {
		if !validStreamName(s.Stream) {
			continue // missing or malformed: already reported
		}
		st := p.Stream(s.Stream)
		switch {
		case st == nil && p.Server.URL == "":
			d.errorf(d.at.sourceStream[i], "source %q: stream: unknown stream %q; declared streams: %s (declare it in a stream block, or set server.url to read a stream that exists on that server)",
				s.Name, s.Stream, names(p.Streams, streamName, "none"))
		case st == nil || s.Subject == "":
		case !slices.ContainsFunc(st.Subjects, func(x string) bool { return subjectsCollide(s.Subject, x) }):
			d.errorf(d.at.sourceSubject[i], "source %q: subject: %q matches none of stream %q's subjects (%s); use a subject the stream captures",
				s.Name, s.Subject, st.Name, strings.Join(st.Subjects, ", "))
		}
	}
}

// checkOperators checks that inputs name declared sources or operator outputs, and that
// outputs name declared sinks.
func (d *decoder) checkOperators(p *Pipeline) {
	for i, op := range p.Operators {
		for k, in := range op.Inputs {
			d.checkInput(p, &op, in, d.at.inputs[i][k])
		}
		for _, out := range sortedKeys(op.Outputs) {
			if sink := op.Outputs[out]; p.Sink(sink) == nil {
				d.errorf(d.at.outputs[i][out], "operator %q: outputs: %s: unknown sink %q; declared sinks: %s",
					op.Name, out, sink, names(p.Sinks, sinkName, "none, add a sink block"))
			}
		}
	}
}

// checkSinks warns about outputs that JetStream will not store, or that the pipeline would read
// back as input.
func (d *decoder) checkSinks(p *Pipeline) {
	for i, s := range p.Sinks {
		if !validSubject(s.Subject) || hasWildcard(s.Subject) {
			continue
		}
		at := d.at.sinkSubject[i]
		if len(p.Streams) > 0 && streamCapturing(p, s.Subject) == nil {
			d.warnf(at, "sink %q: subject: no declared stream captures %q, so its messages are not stored%s; add the subject to a stream's subjects",
				s.Name, s.Subject, unlessServerHasIt(p))
		}
		if src := sourceReading(p, s.Subject); src != nil {
			d.warnf(at, "sink %q: subject: %q is also read by source %q, so the pipeline would consume its own output; narrow the source's subject or publish elsewhere",
				s.Name, s.Subject, src.Name)
		}
	}
}

func unlessServerHasIt(p *Pipeline) string {
	if p.Server.URL != "" {
		return " unless a stream on the server captures it"
	}
	return ""
}

// StreamCapturing returns the declared stream that stores a literal subject, or nil.
func (p *Pipeline) StreamCapturing(subject string) *Stream { return streamCapturing(p, subject) }

// streamCapturing returns the declared stream that stores a literal subject, or nil.
func streamCapturing(p *Pipeline, subject string) *Stream {
	for i, st := range p.Streams {
		if slices.ContainsFunc(st.Subjects, func(x string) bool { return subjectsCollide(subject, x) }) {
			return &p.Streams[i]
		}
	}
	return nil
}

// sourceReading returns a source whose declared stream and filter would deliver a literal
// subject, or nil.
func sourceReading(p *Pipeline, subject string) *Source {
	st := streamCapturing(p, subject)
	if st == nil {
		return nil
	}
	for i, src := range p.Sources {
		if src.Stream == st.Name && (src.Subject == "" || subjectsCollide(subject, src.Subject)) {
			return &p.Sources[i]
		}
	}
	return nil
}

// checkUnused warns about sources no operator reads and sinks no operator writes: legal, but
// usually a misspelling on the other side.
func (d *decoder) checkUnused(p *Pipeline) {
	read, written := map[string]bool{}, map[string]bool{}
	for _, op := range p.Operators {
		for _, in := range op.Inputs {
			read[in] = true
		}
		for _, sink := range op.Outputs {
			written[sink] = true
		}
	}
	for _, s := range p.Sources {
		if !read[s.Name] {
			d.warnf(s.Range, "source %q is not read by any operator; add it to an operator's inputs or remove it", s.Name)
		}
	}
	for i, op := range p.Operators {
		for _, out := range op.InternalOutputs {
			if _, toSink := op.Outputs[out]; !read[op.Name+"."+out] && !toSink {
				d.warnf(d.at.internalOutputs[i][out], "operator %q: internal_outputs: %q is read by no operator; add %q to an operator's inputs or remove it",
					op.Name, out, op.Name+"."+out)
			}
		}
	}
	for _, s := range p.Sinks {
		if !written[s.Name] {
			d.warnf(s.Range, "sink %q is not written by any operator; name it in an operator's outputs or remove it", s.Name)
		}
	}
}

// names lists the names of declared objects for a message, or none when there are none.
func names[T any](items []T, nameOf func(*T) string, none string) string {
	if len(items) == 0 {
		return none
	}
	out := make([]string, len(items))
	for i := range items {
		out[i] = nameOf(&items[i])
	}
	return strings.Join(out, ", ")
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
