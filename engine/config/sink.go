package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// plannedSinkModes are documented but not implemented yet; they get their own message so the
// user knows the mode exists and is coming, not misspelt.
var plannedSinkModes = map[string]bool{"idempotent": true, "transactional": true}

// addSink reads a sink block and appends it unless its name is taken.
func (d *decoder) addSink(p *Pipeline, b *hcl.Block) {
	owner := fmt.Sprintf("sink %q", b.Labels[0])
	a, _ := d.body(b, sinkSchema, owner)
	d.checkObjectName(b, owner)
	s := Sink{Name: b.Labels[0], Mode: sinkMode(a), Range: b.DefRange}
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

// sinkMode reads the delivery mode; only at_least_once exists for now.
func sinkMode(a *attrs) string {
	mode, st := a.str("mode")
	switch {
	case st != present || mode == ModeAtLeastOnce:
		return DefaultSinkMode
	case plannedSinkModes[mode]:
		a.errorf("mode", "%q is not supported yet; use %q (idempotent and transactional sinks are planned)", mode, ModeAtLeastOnce)
	default:
		a.errorf("mode", "%q is not a sink mode; use %q", mode, ModeAtLeastOnce)
	}
	return DefaultSinkMode
}
