package state

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// Backend is the keyed state of one operator task: a write-back cache over
// the Store, scoped to the current record's key, with batch rollback.
//
// Reads go to the cache, then to the store (and the answer, "absent"
// included, is cached); writes only touch the cache. A flush moves the
// writes of a cut into a batch at a checkpoint barrier: FlushTo at once,
// or BeginFlush … EndFlush incrementally (incremental.go). A Backend is used by
// one goroutine, the task's; it is not safe for concurrent use.
type Backend struct {
	store *Store
	db    *pebble.DB
	opts  BackendOptions

	prefix []byte // appendOperatorPrefix(opts.Operator)

	// The current record's key, set by SetCurrentKey or SetCurrentRecord.
	hasKey bool
	kg     int
	key    []byte

	// The TTLs of opts.TTL: ttls[slot-1] is the TTL of the names that
	// ttlSlots maps to slot. An entry keeps its slot, so only a cache miss
	// looks its name up.
	ttls     []TTL
	ttlSlots map[string]uint16
	time     timeSource

	cache entryTable  // cache key (appendGroupKey) -> entry
	names cachedNames // names of the cache's entries, for ReadKey
	last  *entry      // entry of the previous lookup: a Put after a Get skips the map
	// prefetch: the state names to warm the next batch's keys for.
	prefetch prefetch
	dirty    dirtySet
	// gen is the generation of the cut that writes now belong to; flight,
	// when not nil, is the previous cut being flushed (incremental.go).
	gen        uint64
	flight     *flight
	spareList  []*entry        // a flight's emptied list, reused by the next dirty set
	spareParts []*pebble.Batch // a flight's emptied parts, reused by the next flight
	entryBytes int             // stored bytes per entry of the last flight: the size of the next one
	spill      *pebble.Batch   // dirty entries evicted since the last flush; nil when none
	// spillExpiry: the spill holds a value with an expiry, so FlushTo must
	// read it rather than apply it blindly.
	spillExpiry bool
	undo        undoLog
	sweep       sweepState

	keyBuf  []byte // cache key being looked up: appendGroupKey(kg, name, key)
	pebKey  []byte // full Pebble key being read or written
	valBuf  []byte // stored form of a value being written
	stats   Stats
	closed  bool
	evictAt int // evict when the cache holds more entries than this
	// evictHand is the cache slot where the next eviction sweep starts.
	evictHand int
}

// entry is the cached state of one (name, key) pair.
type entry struct {
	key     string // cache key: appendGroupKey(kg, name, userKey)
	value   []byte
	present bool   // false: known absent (deleted, or not in the store)
	dirty   bool   // written, not yet encoded by a flush; its cut is listGen
	listGen uint64 // the generation whose dirty set lists it; 0: none
	ref     bool   // used since the eviction sweep last passed (second chance)
	// hasExpiry: the value expires at expiresAt (Unix ns, in the time domain
	// of its name's TTL).
	hasExpiry bool
	ttlSlot   uint16 // the TTL of its name (Backend.ttls); 0: none
	undoSeq   uint64
	expiresAt int64
}

// Backend returns the backend of one task of operator o.Operator, owning the
// key groups o.Range. Ranges of open backends of one operator must not
// overlap (ErrRangeInUse); Close the backend to release its range.
func (s *Store) Backend(o BackendOptions) (*Backend, error) {
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return nil, err
	}
	if s.opts.ReadOnly {
		return nil, fmt.Errorf("%w: store %s is open read-only; backends write", ErrInvalidOptions, s.dir)
	}
	if err := s.claim(o.Operator, o.Range); err != nil {
		return nil, err
	}
	b := &Backend{
		store:   s,
		db:      s.db,
		opts:    o,
		prefix:  appendOperatorPrefix(nil, o.Operator),
		time:    timeSource{clock: o.Clock},
		cache:   newEntryTable(),
		evictAt: o.CacheEntries,
		gen:     1,
	}
	b.ttls, b.ttlSlots = ttlSlots(o.TTL)
	b.sweep.lo, b.sweep.hi = groupSpan(o.Operator, o.Range)
	return b, nil
}

// Options returns the effective (defaulted) options of the backend.
func (b *Backend) Options() BackendOptions { return b.opts }

// Close releases the backend's key-group range. Writes not flushed are lost.
func (b *Backend) Close() {
	if b.closed {
		return
	}
	b.closed, b.hasKey = true, false
	b.closeSpill()
	b.dropFlight()
	b.closeSpareParts()
	b.cache, b.last, b.dirty, b.undo = entryTable{}, nil, dirtySet{}, undoLog{}
	b.store.release(b.opts.Operator, b.opts.Range)
}

// SetCurrentKey makes key the key every following state call addresses,
// until the next SetCurrentKey or ClearCurrentKey. A key whose key group the
// task does not own is refused with ErrKeyOutOfRange. It is
// SetCurrentRecord(key, 0): event-time TTLs use the processing clock.
func (b *Backend) SetCurrentKey(key []byte) error { return b.SetCurrentRecord(key, 0) }

// SetCurrentRecord is SetCurrentKey for a record with an event time (Unix
// nanoseconds), the "now" of state whose TTL is in EventTime. Event time 0
// means the record has none: its event-time TTLs use the processing clock
// (BackendOptions.Clock). Processing time is read from the clock at most
// once per record, so all state calls of one record see one "now".
func (b *Backend) SetCurrentRecord(key []byte, eventTimeNanos int64) error {
	if b.closed {
		return ErrClosed
	}
	b.hasKey = false
	if len(key) > MaxKeyLen {
		return fmt.Errorf("%w: operator %q: key of %d bytes, the limit is %d", ErrKeyTooLarge, b.opts.Operator, len(key), MaxKeyLen)
	}
	kg := KeyGroup(key, b.opts.MaxParallelism)
	if !b.opts.Range.Contains(kg) {
		return fmt.Errorf("%w: operator %q: key %s is in key group %d, the task owns %s; the record was routed to the wrong task",
			ErrKeyOutOfRange, b.opts.Operator, showKey(key), kg, b.opts.Range)
	}
	b.hasKey, b.kg = true, kg
	b.key = append(b.key[:0], key...)
	b.time.startRecord(eventTimeNanos)
	return nil
}

// ClearCurrentKey ends the current record: state calls fail with
// ErrNoCurrentKey until the next SetCurrentKey.
func (b *Backend) ClearCurrentKey() { b.hasKey = false }

// Get returns the value of state name for the current key. The value is
// valid until the next call on the backend and must not be modified.
//
// With TTL (FORMAT.md §3.1): an expired value is absent under
// NeverReturnExpired, and the Get records its delete for the next flush;
// under ReturnExpiredIfNotCleaned it is returned until cleanup removes it.
// With OnReadAndWrite a live value's expiry moves to now + Duration. Both
// are writes, undone by RollbackBatch like the guest's own.
func (b *Backend) Get(name []byte) (value []byte, found bool, err error) {
	e, err := b.lookup(name)
	if err != nil {
		return nil, false, err
	}
	if e != nil {
		b.stats.Hits++
	} else {
		b.stats.Misses++
		if e, err = b.load(); err != nil {
			return nil, false, err
		}
	}
	e.ref = true
	if e.hasExpiry && b.pending(e) {
		// The cut dropped it if it had expired then (encodePending): the
		// guest must see what a flush at the cut leaves, not the old value.
		b.encodePending(e)
	}
	if !e.present {
		return nil, false, nil
	}
	if (e.hasExpiry || e.ttlSlot != 0) && !b.checkExpiry(e) {
		return nil, false, nil
	}
	return e.value, true, nil
}

// Put sets state name of the current key to a copy of value. When name has
// a TTL the value expires at now + Duration (now in its time domain);
// otherwise it never expires.
func (b *Backend) Put(name, value []byte) error {
	if len(value) > b.opts.MaxValueLen {
		return fmt.Errorf("%w: operator %q: value of %d bytes, the limit (MaxValueLen) is %d",
			ErrValueTooLarge, b.opts.Operator, len(value), b.opts.MaxValueLen)
	}
	e, err := b.lookup(name)
	if err != nil {
		return err
	}
	e = b.prepareWrite(e)
	e.present = true
	e.value = append(shrink(e.value, len(value)), value...)
	b.stampExpiry(e)
	b.markDirty(e)
	return nil
}

// Delete removes state name of the current key.
func (b *Backend) Delete(name []byte) error {
	e, err := b.lookup(name)
	if err != nil {
		return err
	}
	if e != nil && !e.present && !e.dirty {
		e.ref = true
		return nil // known absent from the store: nothing to write
	}
	e = b.prepareWrite(e)
	dropValue(e)
	b.markDirty(e)
	return nil
}

// lookup validates the call, builds the cache key in b.keyBuf and returns
// the cached entry or nil. It does not allocate.
func (b *Backend) lookup(name []byte) (*entry, error) {
	if !b.hasKey {
		if b.closed {
			return nil, ErrClosed
		}
		return nil, fmt.Errorf("%w: operator %q: state is only reachable while a record is current", ErrNoCurrentKey, b.opts.Operator)
	}
	if err := validName(name); err != nil {
		return nil, fmt.Errorf("operator %q: %w", b.opts.Operator, err)
	}
	b.prefetch.learn(name)
	b.keyBuf = appendGroupKey(b.keyBuf[:0], b.kg, name, b.key)
	if b.last != nil && b.last.key == string(b.keyBuf) {
		return b.last, nil
	}
	e := b.cache.get(b.keyBuf)
	if e != nil {
		b.last = e
	}
	return e, nil
}

// uncache removes e from the cache (eviction, rollback of its creation).
func (b *Backend) uncache(e *entry) {
	b.cache.remove(e)
	if b.last == e {
		b.last = nil
	}
}

// prepareWrite returns the entry about to be written for the cache key in
// b.keyBuf (e, or a new entry when e is nil), its pre-image saved in the
// undo log. A new entry is not read from the store: a write needs no read.
func (b *Backend) prepareWrite(e *entry) *entry {
	if e == nil {
		e = b.insert(false, nil)
		b.undo.saveNew(e)
	} else {
		b.touch(e)
		b.undo.save(e)
	}
	e.ref = true
	return e
}

// load reads the cache key in b.keyBuf from the store, through the spill
// batch, and caches the answer as a clean entry.
func (b *Backend) load() (*entry, error) {
	b.pebKey = append(append(b.pebKey[:0], b.prefix...), b.keyBuf...)
	b.stats.PebbleReads++
	v, closer, err := b.reader().Get(b.pebKey)
	if errors.Is(err, pebble.ErrNotFound) {
		return b.insert(false, nil), nil
	}
	if err != nil {
		return nil, fmt.Errorf("state: operator %q: read key group %d: %w", b.opts.Operator, b.kg, err)
	}
	defer closer.Close()
	val, err := DecodeValue(v)
	if err != nil {
		return nil, fmt.Errorf("operator %q, key group %d: %w", b.opts.Operator, b.kg, err)
	}
	e := b.insert(true, val.Data)
	e.hasExpiry, e.expiresAt = val.HasExpiry, val.ExpiresAt
	return e, nil
}

// insert caches b.keyBuf with the given value (copied), evicting first if
// the cache is full so that the new entry survives the sweep.
// value is copied before the sweep, which may write to the spill batch
// that value was read from.
func (b *Backend) insert(present bool, value []byte) *entry {
	e := &entry{key: string(b.keyBuf), present: present}
	if len(b.ttls) > 0 {
		e.ttlSlot = b.ttlSlotOf(groupKeyName(b.keyBuf))
	}
	if present {
		e.value = append([]byte{}, value...)
	}
	if b.cache.len() >= b.evictAt && !b.undo.open {
		b.evict()
	}
	b.cache.add(e)
	b.names.note(groupKeyName(b.keyBuf))
	b.last = e
	return e
}

// markDirty records that e differs from the store, as a write of the
// current generation (its old value, if pending, was encoded by touch).
func (b *Backend) markDirty(e *entry) {
	if !e.dirty {
		e.dirty = true
		b.dirty.add(e, b.gen)
	}
}

// shrink returns buf[:0], or nil when buf is far larger than the next value
// needs: one huge value must not pin its memory for the life of the entry.
func shrink(buf []byte, need int) []byte {
	if cap(buf) > 4096 && cap(buf) > 4*need {
		return nil
	}
	return buf[:0]
}

// showKey quotes a record key for an error message, cut short when long.
func showKey(k []byte) string {
	const show = 64
	if len(k) > show {
		return fmt.Sprintf("%q… (%d bytes)", k[:show], len(k))
	}
	return fmt.Sprintf("%q", k)
}
