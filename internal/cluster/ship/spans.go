package ship

import (
	"github.com/cockroachdb/pebble/v2"

	"github.com/wasmstream/wasmstream/internal/state"
)

// metaFormatVersion is the metadata entry holding the state format
// version. Every task checkpoint ships it, so that a restore can check the
// format of the bytes it imports.
const metaFormatVersion = state.FormatVersionMeta

// Span kinds, as the task manifest names them.
const (
	spanState  = "state"
	spanMeta   = "meta"
	spanOutbox = "outbox"
)

// keySpan is one key range [start, end) a task checkpoint holds.
type keySpan struct {
	kind       string
	start, end []byte
}

// stateSpan returns the bounds of all state keys of operator in the key
// groups [start, end) (internal/state's layout).
func stateSpan(operator string, start, end int) keySpan {
	lo, hi := state.GroupSpan(operator, state.KeyGroupRange{Start: start, End: end})
	return keySpan{kind: spanState, start: lo, end: hi}
}

// metaSpan returns the one-key span of metadata entry name.
func metaSpan(name string) keySpan {
	k := state.MetaKey(name)
	return keySpan{kind: spanMeta, start: k, end: append(append([]byte(nil), k...), 0)}
}

// outboxSpan returns the whole outbox: its keys sort by epoch before
// operator and task, so one task's part is no contiguous span; the outbox
// is small (outputs staged and not yet published), and a restore keeps
// only the task's keys.
func outboxSpan() keySpan {
	lo, hi := state.OutboxSpan()
	return keySpan{kind: spanOutbox, start: lo, end: hi}
}

// spansOf returns the spans a checkpoint of t holds, in a fixed order:
// state, outbox, format_version, then t.MetaNames.
func spansOf(t Task) []keySpan {
	spans := []keySpan{stateSpan(t.Operator, t.Range.Start, t.Range.End), outboxSpan(), metaSpan(metaFormatVersion)}
	for _, n := range t.MetaNames {
		spans = append(spans, metaSpan(n))
	}
	return spans
}

// checkpointSpans converts spans for pebble.WithRestrictToSpans.
func checkpointSpans(spans []keySpan) []pebble.CheckpointSpan {
	out := make([]pebble.CheckpointSpan, len(spans))
	for i, s := range spans {
		out[i] = pebble.CheckpointSpan{Start: s.start, End: s.end}
	}
	return out
}
