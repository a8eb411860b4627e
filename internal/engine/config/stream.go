package config

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// addStream reads a stream block and appends it unless its name is taken.
func (d *decoder) addStream(p *Pipeline, b *hcl.Block) {
	owner := fmt.Sprintf("stream %q", b.Labels[0])
	a, _ := d.body(b, streamSchema, owner)
	if !validStreamName(b.Labels[0]) {
		d.errorf(b.LabelRanges[0], `%s: not a valid stream name; JetStream names cannot contain whitespace, '.', '*', '>', '/' or '\'`, owner)
	}
	d.checkReservedStreamName(b)
	s := Stream{Name: b.Labels[0], Range: b.DefRange}
	subjects, ranges, st := a.strList("subjects", "")
	switch st {
	case absent:
		a.missing("subjects", `list the subjects the stream captures, e.g. subjects = ["payments.>"]`)
	case present:
		checkStreamSubjects(a, subjects, ranges)
	}
	s.Subjects = subjects
	s.DuplicateWindow = a.duration("duplicate_window", 0)
	s.Storage = a.enum("storage", DefaultStorage, "file", "memory")
	s.Retention = a.enum("retention", DefaultRetention, DefaultRetention, "workqueue", "interest")
	s.Replicas = int(a.integer("replicas", 1, MaxReplicas, DefaultReplicas))
	if d.declare(b) {
		p.Streams = append(p.Streams, s)
		d.at.streamSubjects = append(d.at.streamSubjects, ranges)
	}
}

// checkStreamSubjects refuses what JetStream would refuse when creating the stream.
func checkStreamSubjects(a *attrs, subjects []string, ranges []hcl.Range) {
	if len(subjects) == 0 {
		a.errorf("subjects", `must list at least one subject, e.g. ["payments.>"]`)
	}
	seen := map[string]bool{}
	for i, s := range subjects {
		switch {
		case !validSubject(s):
			a.errorAt(ranges[i], "subjects", "%q %s", s, subjectRule)
		case s == ">":
			a.errorAt(ranges[i], "subjects", `">" would capture every subject, which JetStream refuses; use a narrower subject such as "payments.>"`)
		case capturesAPI(s):
			a.errorAt(ranges[i], "subjects", "%q overlaps the server's API subjects ($JS.>, $JSC.>, $NRG.>, $SYS.>), which JetStream refuses; choose another subject", s)
		case capturesDeadLetters(s):
			a.errorAt(ranges[i], "subjects", "%q overlaps %q, %s", s, DeadLetterSubjects, deadLetterOverlap)
		case seen[s]:
			a.errorAt(ranges[i], "subjects", "%q is listed twice; remove one", s)
		}
		seen[s] = true
	}
}

// acceptableStreamSubject reports whether checkStreamSubjects lets a subject through.
func acceptableStreamSubject(s string) bool {
	return validSubject(s) && s != ">" && !capturesAPI(s) && !capturesDeadLetters(s)
}

// subjectRule ends the message about a malformed subject.
const subjectRule = "is not a valid NATS subject; use dot-separated non-empty tokens without spaces, with \"*\" or a final \">\" as wildcards"

// addSource reads a source block and appends it unless its name is taken. Whether its stream is
// declared is checked once every block is read.
func (d *decoder) addSource(p *Pipeline, b *hcl.Block) {
	owner := fmt.Sprintf("source %q", b.Labels[0])
	a, blocks := d.body(b, sourceSchema, owner)
	d.checkObjectName(b, owner)
	s := Source{Name: b.Labels[0], Range: b.DefRange}
	for i, eb := range blocks {
		if i > 0 {
			d.errorf(eb.DefRange, "%s: only one event_id block is allowed; remove this one", owner)
			continue
		}
		id := d.decodeKey(eb, owner)
		s.EventID = &id
	}
	stream, st := a.str("stream")
	switch {
	case st == absent:
		a.missing("stream", `name the JetStream stream to read, e.g. stream = "PAYMENTS"`)
	case st == present && !validStreamName(stream):
		a.errorf("stream", `%q is not a valid stream name; JetStream names cannot contain whitespace, '.', '*', '>', '/' or '\'`, stream)
	}
	s.Stream = stream
	if subject, st := a.str("subject"); st == present {
		if !validSubject(subject) {
			a.errorf("subject", "%q %s", subject, subjectRule)
		}
		s.Subject = subject
	}
	s.StartSequence = uint64(a.integer("start_sequence", 1, maxInt64, DefaultStartSequence))
	s.MaxDuplicateDelay = a.duration("max_duplicate_delay", 0)
	s.Route = a.boolean("route", false)
	if s.Route && s.EventID != nil && strings.EqualFold(s.EventID.Header, "Nats-Msg-Id") {
		a.errorf("route", "a routed source cannot take its event_id from header Nats-Msg-Id: the exchange stream gives each routed record an id of its own; "+
			"key event_id by another header or a json_field, or do not route the source")
	}
	if d.declare(b) {
		p.Sources = append(p.Sources, s)
		d.at.sourceStream = append(d.at.sourceStream, a.rng("stream"))
		d.at.sourceSubject = append(d.at.sourceSubject, a.rng("subject"))
	}
}
