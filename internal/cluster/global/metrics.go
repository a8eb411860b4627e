package global

import (
	"slices"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/protocol"
)

// metrics returns the cut's measurements, as the engine computes them in
// one process: the longest alignment and pause of any task, unaligned when
// any task snapshotted before all its barriers; the bytes of the task
// checkpoints, each counted once.
func metrics(template, cp checkpoint.Manifest, parts []TaskPart) checkpoint.Metrics {
	m := checkpoint.Metrics{DurationNanos: template.Metrics.DurationNanos, Mode: protocol.Aligned.String(),
		Recovery: template.Metrics.Recovery}
	if m.DurationNanos == 0 {
		m.DurationNanos = max(int64(cp.Completed.Sub(cp.Created)), 0)
	}
	counted := map[string]bool{}
	for _, p := range parts {
		m.AlignmentNanos = max(m.AlignmentNanos, p.Entry.AlignmentNanos)
		m.MaxPauseNanos = max(m.MaxPauseNanos, p.Entry.PauseNanos)
		if p.Entry.Unaligned {
			m.Mode = protocol.Unaligned.String()
		}
		if !counted[p.Object] {
			counted[p.Object] = true
			m.BytesTotal += p.Bytes
			m.BytesNew += p.BytesNew
		}
	}
	return m
}

// withEntries returns parts, sorted as ops and their tasks are, with the
// entries of ops: the checkpoint's normalized form (JSON drops empty maps).
func withEntries(parts []TaskPart, ops []checkpoint.OperatorEntry) []TaskPart {
	out := slices.Clone(parts)
	i := 0
	for _, op := range ops {
		for _, e := range op.Tasks {
			out[i].Entry = e
			i++
		}
	}
	return out
}

// workersOf returns the acks' workers, sorted.
func workersOf(acks []Ack) []string {
	ws := make([]string, len(acks))
	for i, a := range acks {
		ws[i] = a.Worker
	}
	slices.Sort(ws)
	return ws
}
