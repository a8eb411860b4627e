package acceptance

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

// logLine is one record of a worker's log, in hclog's text format (the
// CLI's default):
//
//	2025-01-02T15:04:05.000+0100 [INFO]  wasmstream: cluster checkpoint completed: checkpoint=3 bytes=123
//
// The tests read what a worker says it did from it: elections, step-downs,
// completed checkpoints and their upload sizes. A value with spaces is
// quoted (strconv.Quote); slices are printed as [a b].
type logLine struct {
	at  time.Time // the record's time stamp (millisecond precision)
	raw string
}

// parseLogLine reads one line; false for a line that is no record (the
// continuation of a multi-line value, a panic's stack).
func parseLogLine(s string) (logLine, bool) {
	stamp, _, ok := strings.Cut(s, " ")
	if !ok {
		return logLine{}, false
	}
	at, err := time.Parse(hclog.TimeFormat, stamp)
	if err != nil {
		return logLine{}, false
	}
	return logLine{at: at, raw: s}, true
}

// is reports whether the record's message is msg: it follows the logger's
// name and is followed by the fields, if any.
func (l logLine) is(msg string) bool {
	return strings.Contains(l.raw, ": "+msg+": ") || strings.HasSuffix(l.raw, ": "+msg) || strings.Contains(l.raw, ": "+msg+":\n")
}

var fieldPatterns struct {
	sync.Mutex
	byKey map[string]*regexp.Regexp
}

func fieldPattern(key string) *regexp.Regexp {
	fieldPatterns.Lock()
	defer fieldPatterns.Unlock()
	re, ok := fieldPatterns.byKey[key]
	if !ok {
		re = regexp.MustCompile(`(?:^|\s)` + regexp.QuoteMeta(key) + `=("(?:[^"\\]|\\.)*"|\S+)`)
		if fieldPatterns.byKey == nil {
			fieldPatterns.byKey = map[string]*regexp.Regexp{}
		}
		fieldPatterns.byKey[key] = re
	}
	return re
}

// field returns the value of the record's field key, unquoted.
func (l logLine) field(key string) (string, bool) {
	m := fieldPattern(key).FindStringSubmatch(l.raw)
	if m == nil {
		return "", false
	}
	if v, err := strconv.Unquote(m[1]); err == nil {
		return v, true
	}
	return m[1], true
}

// uint is the record's field key as an unsigned integer.
func (l logLine) uint(key string) (uint64, error) {
	v, ok := l.field(key)
	if !ok {
		return 0, fmt.Errorf("no field %s in the log line %q", key, l.raw)
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("field %s of the log line %q: %w", key, l.raw, err)
	}
	return n, nil
}

// find returns the worker's records with message msg, in log order.
func (w *worker) find(msg string) []logLine {
	var out []logLine
	for _, s := range w.lines() {
		if l, ok := parseLogLine(s); ok && l.is(msg) {
			out = append(out, l)
		}
	}
	return out
}

// findSince is find of the records stamped at or after since. The stamps
// have millisecond precision: since is rounded down to the millisecond.
func (w *worker) findSince(msg string, since time.Time) []logLine {
	since = since.Truncate(time.Millisecond)
	var out []logLine
	for _, l := range w.find(msg) {
		if !l.at.Before(since) {
			out = append(out, l)
		}
	}
	return out
}

// Messages the tests look for in the workers' logs
// (internal/cluster/worker).
const (
	logElected        = "coordinator elected"
	logSteppedDown    = "stepped down as coordinator"
	logCompleted      = "cluster checkpoint completed"
	logMembershipLost = "membership lease lost"
	// logWaitingForLease: the id's membership lease is still held.
	logWaitingForLease = "waiting for the membership lease of an earlier worker with this id to expire"
	logDeadLetter      = "record sent to dead-letter subject" // internal/engine
)
