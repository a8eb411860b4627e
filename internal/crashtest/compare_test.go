package crashtest

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/wasmstream/wasmstream/internal/engine"
)

// stateKey identifies a state entry across two dumps.
type stateKey struct {
	operator string
	keyGroup int
	name     string
	key      string
}

// diffStates lists how got differs from want (at most limit lines).
func diffStates(got, want []engine.StateEntry, limit int) []string {
	index := func(entries []engine.StateEntry) map[stateKey][]byte {
		m := make(map[stateKey][]byte, len(entries))
		for _, e := range entries {
			m[stateKey{e.Operator, e.KeyGroup, e.Name, e.Key}] = e.Value
		}
		return m
	}
	g, w := index(got), index(want)
	var diffs []string
	add := func(format string, args ...any) {
		if len(diffs) < limit {
			diffs = append(diffs, fmt.Sprintf(format, args...))
		}
	}
	for k, wv := range w {
		gv, ok := g[k]
		switch {
		case !ok:
			add("missing %+v (reference has %x)", k, wv)
		case !bytes.Equal(gv, wv):
			add("%+v = %x, reference has %x", k, gv, wv)
		}
	}
	for k, gv := range g {
		if _, ok := w[k]; !ok {
			add("extra %+v = %x", k, gv)
		}
	}
	if len(got) != len(g) || len(want) != len(w) {
		add("duplicate keys in a dump: %d entries, %d distinct; reference %d, %d distinct", len(got), len(g), len(want), len(w))
	}
	return diffs
}

// requireSameState fails when got is not the reference state want.
func requireSameState(t *testing.T, what string, got, want []engine.StateEntry) {
	t.Helper()
	if len(want) == 0 {
		t.Fatalf("%s: the reference state is empty: the comparison would prove nothing", what)
	}
	if diffs := diffStates(got, want, 10); len(diffs) > 0 {
		t.Fatalf("%s: state differs from the reference (%d vs %d entries):\n%s", what, len(got), len(want), joinLines(diffs))
	}
}

func joinLines(lines []string) string {
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString("  ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// outputCheck is the accounting of stored outputs against the expected ids.
type outputCheck struct {
	stored     int // stored messages
	lost       int // expected ids with no stored message
	duplicates int // stored messages beyond the first with the same id
	unexpected int // stored messages whose id is not expected
	differing  int // stored messages whose payload differs from the reference's
	examples   []string
	// duplicatesAllowed makes duplicates no failure (at_least_once sinks).
	duplicatesAllowed bool
	// detail is more accounting for the summary line, " key=value ...".
	detail string
}

// checkOutputs accounts msgs against expected ids and, when reference is
// not nil, against the reference run's payload of each id.
func checkOutputs(msgs []storedMsg, expected []string, reference map[string][]byte) outputCheck {
	c := outputCheck{stored: len(msgs)}
	note := func(format string, args ...any) {
		if len(c.examples) < 10 {
			c.examples = append(c.examples, fmt.Sprintf(format, args...))
		}
	}
	want := make(map[string]bool, len(expected))
	for _, id := range expected {
		want[id] = true
	}
	seen := make(map[string]int, len(msgs))
	for _, m := range msgs {
		seen[m.msgID]++
		switch {
		case seen[m.msgID] > 1:
			c.duplicates++
			note("duplicate %s (stream sequence %d)", m.msgID, m.seq)
		case !want[m.msgID]:
			c.unexpected++
			note("unexpected %s (stream sequence %d): %s", m.msgID, m.seq, m.data)
		case reference != nil && !bytes.Equal(reference[m.msgID], m.data):
			c.differing++
			note("%s is %s, reference %s", m.msgID, m.data, reference[m.msgID])
		}
	}
	for _, id := range expected {
		if seen[id] == 0 {
			c.lost++
			note("lost %s", id)
		}
	}
	return c
}

func (c outputCheck) ok() bool {
	return c.lost == 0 && (c.duplicates == 0 || c.duplicatesAllowed) && c.unexpected == 0 && c.differing == 0
}

// require fails the test unless every expected output is stored exactly
// once with the reference's payload and nothing else is.
func (c outputCheck) require(t *testing.T, what string) {
	t.Helper()
	if !c.ok() {
		t.Fatalf("%s: %d outputs stored: %d lost, %d duplicates, %d unexpected, %d differ from the reference:\n%s",
			what, c.stored, c.lost, c.duplicates, c.unexpected, c.differing, joinLines(c.examples))
	}
}

// payloads maps each output id to its payload (the first stored).
func payloads(msgs []storedMsg) map[string][]byte {
	m := make(map[string][]byte, len(msgs))
	for _, s := range msgs {
		if _, ok := m[s.msgID]; !ok {
			m[s.msgID] = s.data
		}
	}
	return m
}
