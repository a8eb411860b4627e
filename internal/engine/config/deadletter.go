package config

import "github.com/hashicorp/hcl/v2"

// The engine's dead-letter stream. The engine creates it on the server of every pipeline it runs,
// beside the declared streams, so no declared stream may take its name or capture its subjects:
// JetStream gives a subject to one stream only and would refuse to create the second.
const (
	// DeadLetterStream keeps the dead letters of every pipeline.
	DeadLetterStream = "WASMSTREAM_DLQ"
	// DeadLetterSubjects is what DeadLetterStream captures: every default dead-letter subject,
	// wasmstream.dlq.<pipeline>.<operator>.
	DeadLetterSubjects = deadLetterPrefix + ">"
)

// capturesDeadLetters reports whether a stream subject collides with DeadLetterSubjects.
func capturesDeadLetters(subject string) bool { return subjectsCollide(subject, DeadLetterSubjects) }

// deadLetterOverlap ends the message about a declared stream subject that capturesDeadLetters.
const deadLetterOverlap = "which the engine's own stream " + DeadLetterStream + " captures: dead letters go to " +
	DeadLetterStream + ", and a subject can belong to one stream only; remove this subject (dead letters stay " +
	"readable in " + DeadLetterStream + "), or, to keep an operator's dead letters in this stream, set the " +
	"operator's dead_letter_subject to a subject outside " + DeadLetterSubjects + " that the stream captures"

// checkReservedStreamName refuses a declared stream that takes the name of the engine's own.
func (d *decoder) checkReservedStreamName(b *hcl.Block) {
	if b.Labels[0] == DeadLetterStream {
		d.errorf(b.LabelRanges[0], "stream %q: the name is taken by the engine's own dead-letter stream, which it creates with subjects [%q]; choose another name",
			b.Labels[0], DeadLetterSubjects)
	}
}

// checkDeadLetterSubjects warns about a dead_letter_subject outside DeadLetterSubjects that no
// declared stream captures: like a sink's output, its dead letters would not be stored.
func (d *decoder) checkDeadLetterSubjects(p *Pipeline) {
	for i, op := range p.Operators {
		s := op.DeadLetterSubject
		if len(p.Streams) == 0 || !validSubject(s) || hasWildcard(s) || capturesDeadLetters(s) || streamCapturing(p, s) != nil {
			continue
		}
		d.warnf(d.at.deadLetter[i], "operator %q: dead_letter_subject: %q is outside %s (stream %s) and no declared stream captures it, so its dead letters are not stored%s; add the subject to a stream's subjects",
			op.Name, s, DeadLetterSubjects, DeadLetterStream, unlessServerHasIt(p))
	}
}
