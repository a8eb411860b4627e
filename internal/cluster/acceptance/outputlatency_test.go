package acceptance

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wasmstream/wasmstream/internal/cluster/assign"
)

// An output gap (outputgap_test.go) includes the wait for a key's next
// record and the machine's stalls, which touch unmoved keys as well. The
// pause a change adds to a key group shows more directly in latency:
// an output's stream time stamp minus the time its input was acknowledged
// to the publisher. Records that arrive while their task is stopped wait
// for it, so their latency exceeds the key group's latency just before
// the change by about the pause (plus the catch-up of what queued
// meanwhile).

// latencyWindow is how far before a change the baseline latency is taken.
const latencyWindow = 5 * time.Second

// latencySample is one output: when it was stored and its latency.
type latencySample struct {
	stamp   time.Time
	input   time.Time
	latency time.Duration
	group   int
}

// outputLatencies pairs each stored output with its input's publish time.
func outputLatencies(msgs []storedMsg, m *model) ([]latencySample, error) {
	var out []latencySample
	for _, msg := range msgs {
		seq, ok := inputSeqOf(msg.msgID)
		if !ok {
			continue
		}
		in, ok := m.stored[seq]
		if !ok {
			continue
		}
		o, err := decodeOutput(msg.data)
		if err != nil {
			continue
		}
		kg, err := keyGroupOf(o.K)
		if err != nil {
			return nil, err
		}
		out = append(out, latencySample{stamp: msg.stamp, input: in, latency: msg.stamp.Sub(in), group: kg})
	}
	return out, nil
}

// inputSeqOf is the input's stream sequence in an output id
// (<pipeline>.<operator>.<source>.<sequence>.<n>, outputID).
func inputSeqOf(id string) (uint64, bool) {
	parts := strings.Split(id, ".")
	if len(parts) < 2 {
		return 0, false
	}
	seq, err := strconv.ParseUint(parts[len(parts)-2], 10, 64)
	return seq, err == nil
}

// addedLatency reports, for the outputs of groups, the latency of the
// records published during [from, to] (median and largest) beside the
// median latency of the groups' outputs stored in the latencyWindow
// before from: a pause of the groups' tasks shows as records of the change
// waiting longer than those before it did.
func addedLatency(samples []latencySample, groups []assign.Range, from, to time.Time) string {
	in := func(s latencySample) bool {
		return slices.ContainsFunc(groups, func(r assign.Range) bool { return s.group >= r.Start && s.group < r.End })
	}
	var before, during []time.Duration
	for _, s := range samples {
		switch {
		case !in(s):
		case s.stamp.Before(from) && !s.stamp.Before(from.Add(-latencyWindow)):
			before = append(before, s.latency)
		case !s.input.Before(from) && !s.input.After(to):
			during = append(during, s.latency)
		}
	}
	if len(before) == 0 || len(during) == 0 {
		return fmt.Sprintf("latency: %d outputs before, %d of records published during the change: nothing to compare", len(before), len(during))
	}
	slices.Sort(before)
	slices.Sort(during)
	return fmt.Sprintf("latency of the records published during the change median %s, max %s (%d outputs); in the %s before it median %s",
		during[len(during)/2].Round(time.Millisecond), during[len(during)-1].Round(time.Millisecond), len(during),
		latencyWindow, before[len(before)/2].Round(time.Millisecond))
}
