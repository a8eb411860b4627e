package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wasmstream/wasmstream/checkpoint"
)

// shortHashLen is how much of a module hash identifies an operator version
// in a table: 12 hex digits make an accidental match between two builds of
// one operator practically impossible, and the full hash is in inspect.
const shortHashLen = 12

// timeLayout prints checkpoint times in UTC with milliseconds: checkpoints
// follow each other within seconds, so whole seconds would hide the order.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// humanBytes formats a byte count with binary units, three significant
// digits: 512 B, 1.5 KiB, 12.3 MiB.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, i := float64(n), -1
	for v >= unit && i < 5 {
		v /= unit
		i++
	}
	return trimNumber(v) + " " + "KMGTPE"[i:i+1] + "iB"
}

// humanDuration formats nanoseconds with three significant digits in the
// largest unit below the value (850ns, 1.25ms, 34ms, 2.5s); from a minute on
// it is whole seconds (2m5s).
func humanDuration(ns int64) string {
	d := time.Duration(ns)
	switch {
	case d == 0:
		return "0s"
	case d < 0:
		return "-" + humanDuration(-ns)
	case d < time.Microsecond:
		return strconv.FormatInt(ns, 10) + "ns"
	case d < time.Millisecond:
		return trimNumber(float64(d)/float64(time.Microsecond)) + "µs"
	case d < time.Second:
		return trimNumber(float64(d)/float64(time.Millisecond)) + "ms"
	case d < time.Minute:
		return trimNumber(d.Seconds()) + "s"
	}
	return d.Round(time.Second).String()
}

// trimNumber prints v (1 <= v < 1024) with three significant digits at most
// and no trailing zeros.
func trimNumber(v float64) string {
	decimals := 0
	switch {
	case v < 10:
		decimals = 2
	case v < 100:
		decimals = 1
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// shortHash returns the first shortHashLen characters of a hex hash.
func shortHash(h string) string {
	if len(h) > shortHashLen {
		return h[:shortHashLen]
	}
	return h
}

// formatPositions prints source positions as "payments=1500 limits=40", in
// manifest order.
func formatPositions(sources []checkpoint.SourcePosition) string {
	parts := make([]string, len(sources))
	for i, s := range sources {
		parts[i] = fmt.Sprintf("%s=%d", s.Name, s.LastSequence)
	}
	return dashIfEmpty(strings.Join(parts, " "))
}

// formatOperators prints operator versions as "risk@0123456789ab".
func formatOperators(ops []checkpoint.OperatorEntry) string {
	parts := make([]string, len(ops))
	for i, op := range ops {
		parts[i] = op.Name + "@" + shortHash(op.ModuleSHA256)
	}
	return dashIfEmpty(strings.Join(parts, " "))
}

// formatInputs prints a task's inputs sorted by source name.
func formatInputs(inputs map[string]uint64) string {
	names := make([]string, 0, len(inputs))
	for name := range inputs {
		names = append(names, name)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%s=%d", name, inputs[name])
	}
	return dashIfEmpty(strings.Join(parts, " "))
}

// dashIfEmpty keeps table columns aligned when a value is absent.
func dashIfEmpty(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// yesNo prints a flag in a table.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
