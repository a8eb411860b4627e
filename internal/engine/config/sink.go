package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// addSink reads a sink block and appends it unless its name is taken.
func (d *decoder) addSink(p *Pipeline, b *hcl.Block) {
	owner := fmt.Sprintf("sink %q", b.Labels[0])
	a, _ := d.body(b, sinkSchema, owner)
	d.checkObjectName(b, owner)
	s := Sink{Name: b.Labels[0], Mode: sinkMode(a), Range: b.DefRange}
	s.BatchSize = int(a.integer("batch_size", 1, DefaultSinkBatchSize, DefaultSinkBatchSize))
	if a.has("batch_size") && s.Mode != ModeTransactional {
		a.warnf("batch_size", "has no effect with mode %q; only transactional sinks publish in batches", s.Mode)
	}
	subject, st := a.str("subject")
	switch {
	case st == absent:
		a.missing("subject", `name the subject to publish to, e.g. subject = "risk.totals"`)
	case st != present:
	case !validSubject(subject):
		a.errorf("subject", "%q %s", subject, subjectRule)
	case hasWildcard(subject):
		a.errorf("subject", "%q contains a wildcard; a sink publishes to one literal subject such as \"risk.totals\"", subject)
	}
	s.Subject = subject
	if d.declare(b) {
		p.Sinks = append(p.Sinks, s)
		d.at.sinkSubject = append(d.at.sinkSubject, a.rng("subject"))
	}
}

// sinkMode reads the delivery mode.
func sinkMode(a *attrs) string {
	return a.enum("mode", DefaultSinkMode, ModeIdempotent, ModeTransactional, ModeAtLeastOnce)
}
