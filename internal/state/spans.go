package state

// Key spans of the layout (FORMAT.md), for code that copies part of a
// store's keys rather than reading them through a Backend: the cluster's
// state shipping takes a Pebble checkpoint restricted to a task's spans
// and imports a key-group range on another machine.

// FormatVersionMeta is the metadata entry that holds the state format
// version (FORMAT.md §4).
const FormatVersionMeta = metaFormatVersion

// GroupSpan returns the bounds [lo, hi) of every state key of operator in
// the key groups of r.
func GroupSpan(operator string, r KeyGroupRange) (lo, hi []byte) { return groupSpan(operator, r) }

// MetaKey returns the key of metadata entry name.
func MetaKey(name string) []byte { return metaKey(name) }

// OutboxSpan returns the bounds [lo, hi) of the whole transactional
// outbox. Its keys sort by epoch first (FORMAT.md §6), so one task's
// part of it is not one span.
func OutboxSpan() (lo, hi []byte) { return []byte{outboxPrefix}, outboxBound(^uint64(0)) }
