package conformance

import (
	"bytes"
	"fmt"
)

// maxDiffs bounds the differences Compare lists: past a few, the rest is
// usually the same mistake again.
const maxDiffs = 20

// Compare returns the differences between the expected and the actual
// result of a case, one line each, or nil when they are identical.
// Reasons of dead letters are free text and not compared.
func Compare(want, got *Expect) []string {
	d := &diffs{}
	d.initError(want.InitError, got.InitError)
	compareList(d, "declaration", want.Declarations, got.Declarations, func(x Declaration) string { return line(x) })
	compareList(d, "output", want.Outputs, got.Outputs, func(o Output) string { return line(o) })
	compareList(d, "dead letter", want.DeadLetters, got.DeadLetters, func(x DeadLetter) string { return line(x) })
	if w, g := line(want.Migration), line(got.Migration); w != g {
		d.add("migration: want %s\nmigration:  got %s", w, g)
	}
	d.state(want.State, got.State)
	return d.list
}

type diffs struct{ list []string }

func (d *diffs) add(format string, args ...any) {
	switch {
	case len(d.list) < maxDiffs:
		d.list = append(d.list, fmt.Sprintf(format, args...))
	case len(d.list) == maxDiffs:
		d.list = append(d.list, "(more differences not shown)")
	}
}

func (d *diffs) initError(want, got *InitError) {
	switch {
	case want == nil && got == nil:
	case want == nil:
		d.add("init: want success, got %s", line(got))
	case got == nil:
		d.add("init: want %s, got success", line(want))
	case *want != *got:
		d.add("init: want %s, got %s", line(want), line(got))
	}
}

// compareList compares two sequences element by element, as one-line JSON.
func compareList[T any](d *diffs, what string, want, got []T, show func(T) string) {
	for i := range max(len(want), len(got)) {
		switch {
		case i >= len(got):
			d.add("%s %d: missing, want %s", what, i, show(want[i]))
		case i >= len(want):
			d.add("%s %d: unexpected %s", what, i, show(got[i]))
		case show(want[i]) != show(got[i]):
			d.add("%s %d: want %s\n%s %d:  got %s", what, i, show(want[i]), what, i, show(got[i]))
		}
	}
	if len(want) != len(got) {
		d.add("%d %ss, want %d", len(got), what, len(want))
	}
}

func (d *diffs) state(want, got State) {
	for _, k := range unionKeys(want, got) {
		for _, n := range unionKeys(want[k], got[k]) {
			w, inWant := want[k][n]
			g, inGot := got[k][n]
			key, name := FormatBytes([]byte(k), false), FormatBytes([]byte(n), false)
			switch {
			case !inGot:
				d.add("state %q %q: missing, want %s", key, name, FormatBytes(w, true))
			case !inWant:
				d.add("state %q %q: unexpected %s", key, name, FormatBytes(g, true))
			case !bytes.Equal(w, g):
				d.add("state %q %q: want %s, got %s", key, name, FormatBytes(w, true), FormatBytes(g, true))
			}
		}
	}
}

// unionKeys returns the keys of both maps, sorted.
func unionKeys[V any](a, b map[string]V) []string {
	all := map[string]bool{}
	for k := range a {
		all[k] = true
	}
	for k := range b {
		all[k] = true
	}
	return sortedKeys(all)
}

// line is the one-line JSON of v, as case files show it.
func line(v any) string {
	b, err := marshalCompact(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}
