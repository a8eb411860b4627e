package natsio

import "github.com/nats-io/nats.go"

// subject returns the counters of msg's subject, creating them. A
// pipeline's sinks publish to the fixed subjects of its sink blocks and
// dead-letter subjects, so the map stays as small as the pipeline file.
// Lock held.
func (s *Sink) subject(msg *nats.Msg) *SinkStats {
	st, ok := s.bySubject[msg.Subject]
	if !ok {
		if s.bySubject == nil {
			s.bySubject = map[string]*SinkStats{}
		}
		st = &SinkStats{}
		s.bySubject[msg.Subject] = st
	}
	return st
}

// StatsBySubject returns the Sink's counts split by message subject
// (Pending included): the subjects it published to, each once.
func (s *Sink) StatsBySubject() map[string]SinkStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]SinkStats, len(s.bySubject))
	for subj, st := range s.bySubject {
		out[subj] = *st
	}
	return out
}
