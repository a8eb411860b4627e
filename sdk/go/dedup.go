package wasmstream

import "time"

// Dedup remembers ids per key for a time, to drop redelivered events. It is
// a map state whose entries are name "\x00" id = 0x01, declared with a TTL
// on create and write, never returning expired entries, in processing time.
//
// The TTL must cover the longest time a duplicate can arrive after the
// original: a redelivery after the TTL is processed again. The host warns
// when a TTL is shorter than a source's declared max_duplicate_delay.
type Dedup struct {
	seen *MapState[string, bool]
}

// NewDedup returns the dedup set called name whose ids live for ttl (at
// least one millisecond). Declare it as a package variable, like a state.
func NewDedup(name string, ttl time.Duration) *Dedup {
	m := NewMapState[string](name, BoolCodec).Declare(StateOptions{TTL: &TTL{Duration: ttl}})
	return &Dedup{seen: m}
}

// Name returns the dedup set's state name.
func (d *Dedup) Name() string { return d.seen.Name() }

// IsDuplicate reports whether id was seen for the current record's key
// within the TTL. When it was not, it remembers id and returns false. The
// id is scoped to the key: key the records by the event id to deduplicate
// across all keys.
func (d *Dedup) IsDuplicate(id string) (bool, error) {
	_, found, err := d.seen.Get(id)
	if err != nil || found {
		return found, err
	}
	return false, d.seen.Put(id, true) // stored as the byte 0x01
}
