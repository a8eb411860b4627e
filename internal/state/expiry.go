package state

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"time"
)

// TTL enforcement (FORMAT.md §3.1, RATIONALE.md "State TTL"). A value
// carries its expiry; the TTL configuration only decides what a write or a
// read does to it, so a stored expiry is honoured whether or not its name
// still has a TTL.

// timeSource answers "what time is it" for TTL decisions.
type timeSource struct {
	clock func() int64

	eventTime int64 // the current record's event time; 0: none
	procNow   int64 // the clock, read at most once per record
	procValid bool

	// highWater is the largest event time seen: the event-time "now" of
	// cleanup (FlushTo, Sweep), which has no record of its own.
	highWater int64
	hasHigh   bool
}

// defaultClock is BackendOptions.Clock when none is given.
func defaultClock() int64 { return time.Now().UnixNano() }

// startRecord begins a record with the given event time (0: none).
func (ts *timeSource) startRecord(eventTime int64) {
	ts.eventTime, ts.procValid = eventTime, false
	if eventTime != 0 {
		ts.observe(eventTime)
	}
}

func (ts *timeSource) observe(t int64) {
	if !ts.hasHigh || t > ts.highWater {
		ts.highWater, ts.hasHigh = t, true
	}
}

// recordNow is the current record's time in domain d. The clock is read
// once per record, so a Get and a Put of one record agree on "now" (a value
// cannot expire between the read and the write of a read-modify-write), and
// a record that touches no TTL'd state never reads it.
func (ts *timeSource) recordNow(d TimeDomain) int64 {
	if d == EventTime && ts.eventTime != 0 {
		return ts.eventTime
	}
	if !ts.procValid {
		ts.procNow, ts.procValid = ts.clock(), true
	}
	if d == EventTime {
		ts.observe(ts.procNow) // the clock stands in for the record's event time
	}
	return ts.procNow
}

// cleanupTime is "now" for cleanup, which runs between records.
type cleanupTime struct {
	proc, event int64
	hasEvent    bool
}

func (ts *timeSource) cleanupNow() cleanupTime {
	return cleanupTime{proc: ts.clock(), event: ts.highWater, hasEvent: ts.hasHigh}
}

// expired reports whether expiresAt has passed in domain d. Before any
// event time was seen, nothing has expired in event time.
func (c cleanupTime) expired(expiresAt int64, d TimeDomain) bool {
	if d == EventTime {
		return c.hasEvent && expiresAt <= c.event
	}
	return expiresAt <= c.proc
}

// available reports whether cleanup has a "now" in domain d.
func (c cleanupTime) available(d TimeDomain) bool { return d != EventTime || c.hasEvent }

// in is cleanup's "now" in domain d (check available first).
func (c cleanupTime) in(d TimeDomain) int64 {
	if d == EventTime {
		return c.event
	}
	return c.proc
}

// ttlSlots numbers the TTLs by name, in name order.
func ttlSlots(ttl map[string]TTL) ([]TTL, map[string]uint16) {
	if len(ttl) == 0 {
		return nil, nil
	}
	list, slots := make([]TTL, 0, len(ttl)), make(map[string]uint16, len(ttl))
	for _, name := range slices.Sorted(maps.Keys(ttl)) {
		list = append(list, ttl[name])
		slots[name] = uint16(len(list))
	}
	return list, slots
}

// ttlSlotOf returns the TTL slot of state name (0: none). A map-state entry
// (name 0x00 mapKey, the SDK convention) has the TTL of the map's name, the
// part before the first 0x00.
func (b *Backend) ttlSlotOf(name []byte) uint16 {
	if i := bytes.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	return b.ttlSlots[string(name)]
}

// ttlFor returns the TTL of state name. Without one, the zero TTL
// (processing time, never return expired) still governs a stored expiry.
func (b *Backend) ttlFor(name []byte) (TTL, bool) {
	if len(b.ttls) == 0 {
		return TTL{}, false
	}
	return b.ttlOfSlot(b.ttlSlotOf(name))
}

// ttlOf is ttlFor for a cached entry, without a lookup.
func (b *Backend) ttlOf(e *entry) (TTL, bool) { return b.ttlOfSlot(e.ttlSlot) }

func (b *Backend) ttlOfSlot(slot uint16) (TTL, bool) {
	if slot == 0 {
		return TTL{}, false
	}
	return b.ttls[slot-1], true
}

// stampExpiry gives e, being written by a Put, its expiry: now + Duration
// when its name has a TTL, none otherwise (a Put under a removed TTL makes
// the value permanent again).
func (b *Backend) stampExpiry(e *entry) {
	c, ok := b.ttlOf(e)
	e.hasExpiry = ok
	if ok {
		e.expiresAt = expiryAfter(b.time.recordNow(c.TimeDomain), c.Duration)
	}
}

// checkExpiry applies the TTL rules to a present entry that a Get found,
// and reports whether the value is visible. It drops an expired value
// (NeverReturnExpired), extends a live one (OnReadAndWrite) and gives a
// first expiry to a value written before its name had a TTL. Each change
// goes through the undo log: a rolled-back batch undoes its reads' effects.
func (b *Backend) checkExpiry(e *entry) bool {
	c, hasTTL := b.ttlOf(e)
	if !e.hasExpiry {
		if hasTTL {
			b.setExpiry(e, expiryAfter(b.time.recordNow(c.TimeDomain), c.Duration))
			b.stats.Adopted++
		}
		return true
	}
	now := b.time.recordNow(c.TimeDomain)
	switch {
	case e.expiresAt <= now && c.Visibility == ReturnExpiredIfNotCleaned:
		return true
	case e.expiresAt <= now:
		b.touch(e)
		b.undo.save(e)
		dropValue(e)
		b.markDirty(e) // the next flush deletes it from the store
		b.stats.ExpiredOnAccess++
		return false
	case hasTTL && c.Update == OnReadAndWrite:
		// Never shorten: a late event-time record must not cut short the
		// life a later one gave the value.
		if exp := expiryAfter(now, c.Duration); exp > e.expiresAt {
			b.setExpiry(e, exp)
			b.stats.Refreshed++
		}
	}
	return true
}

// setExpiry changes e's expiry as a write: undo log, then dirty.
func (b *Backend) setExpiry(e *entry, expiresAt int64) {
	b.touch(e)
	b.undo.save(e)
	e.hasExpiry, e.expiresAt = true, expiresAt
	b.markDirty(e)
}

// dropValue makes e absent (the caller marks it dirty or knows the store
// agrees).
func dropValue(e *entry) {
	e.present, e.hasExpiry, e.expiresAt = false, false, 0
	e.value = e.value[:0]
}

// expiredAt reports whether a present entry with an expiry has expired at
// cleanup time now.
func (b *Backend) expiredAt(e *entry, now cleanupTime) bool {
	if !e.present || !e.hasExpiry {
		return false
	}
	c, _ := b.ttlOf(e)
	return now.expired(e.expiresAt, c.TimeDomain)
}

// SetTTL replaces the backend's TTLs (BackendOptions.TTL) before it serves
// its first record: the engine learns a module's TTL declarations only
// once its instance, which needs the backend, has run ws_init. Cached
// entries keep the TTL slot they were loaded with, so once anything is
// cached the TTLs are fixed: SetTTL then fails with ErrInvalidOptions.
func (b *Backend) SetTTL(ttl map[string]TTL) error {
	if b.closed {
		return ErrClosed
	}
	if b.cache.len() > 0 || b.spill != nil || b.flight != nil || b.undo.open {
		return fmt.Errorf("%w: operator %q: TTLs are set before the first record", ErrInvalidOptions, b.opts.Operator)
	}
	o := b.opts
	o.TTL = maps.Clone(ttl)
	if err := o.validateTTL(); err != nil {
		return err
	}
	b.opts = o
	b.ttls, b.ttlSlots = ttlSlots(o.TTL)
	return nil
}
