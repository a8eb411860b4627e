package config

import "testing"

func TestCapturesDeadLetters(t *testing.T) {
	for s, want := range map[string]bool{
		"wasmstream.dlq.p.o": true, "wasmstream.dlq.p.>": true, "wasmstream.>": true, "*.dlq.>": true,
		"wasmstream.*.p.o": true, "wasmstream.dlq": false, "wasmstream.*": false, "wasmstream.other.>": false,
		"dlq.>": false, "risk.>": false,
	} {
		if got := capturesDeadLetters(s); got != want {
			t.Errorf("capturesDeadLetters(%q) = %v, want %v", s, got, want)
		}
	}
	if DeadLetterSubjects != "wasmstream.dlq.>" || defaultDeadLetterSubject("p", "o") != "wasmstream.dlq.p.o" {
		t.Errorf("DeadLetterSubjects = %q: the default dead-letter subjects must lie under it", DeadLetterSubjects)
	}
}
