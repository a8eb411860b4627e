package state

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// An incremental flush writes a cut of the state without stopping the
// guest for the whole dirty set (RATIONALE.md "Incremental flush").
// BeginFlush cuts in O(1): the dirty set and the spill batch become the
// flight of generation gen and new writes belong to gen+1. FlushStep
// encodes the flight's entries a bounded number at a time, between guest
// batches; a write to an entry not yet encoded encodes its cut value first
// (copy-on-write, touch). Once every entry is encoded the Flush is handed
// to whoever commits it, possibly another goroutine; EndFlush, after the
// commit, ends the flight.
//
// Until EndFlush the store still holds the previous cut, and the cache and
// the frozen spill hold everything newer: nothing is evicted (the cache may
// grow past CacheEntries; FlushOverfull says when the caller should finish
// the flight) and Sweep does nothing. So reads stay exact and the store
// still changes only by committed cuts.

// A flight encodes into parts of partBytes, allocated at that size and
// reused by later flights (up to maxSpareParts of them): a Pebble batch
// grows by doubling and copying, and a step that allocates pays the
// garbage collector's assists (with a large cache, for hundreds of
// milliseconds), so a step must neither grow a batch nor allocate one.
// The parts a flight needs beyond the spare ones are estimated from the
// size of the previous flight's entries and allocated by a short-lived
// goroutine (prepareParts), whose allocations charge no assists to the
// task's goroutine.
const (
	partBytes     = 4 << 20
	partSlack     = 64 << 10 // a part takes no more entries this close to full
	maxSpareParts = 16
)

// flight is a cut being flushed.
type flight struct {
	gen     uint64
	now     cleanupTime // cleanup's "now" at the cut: expiry in the flush
	list    []*entry    // the cut's dirty set; pending entries have dirty set and listGen gen
	next    int         // list[:next] visited
	spill   *pebble.Batch
	spilled int           // bytes of spill
	ext     *pebble.Batch // FlushTo's batch: every write goes there; nil: parts
	parts   []*pebble.Batch
	written int
	err     error
	feed    chan *pebble.Batch // parts allocated by prepareParts; nil when none
}

// Flush is an encoded cut: the batches that take the store from the
// previous cut to this one. It does not change, and ApplyTo may run on
// another goroutine while the backend serves reads and writes.
type Flush struct {
	spill   *pebble.Batch
	parts   []*pebble.Batch
	written int
}

// Written is the number of keys the flush writes (as FlushTo counts them).
func (f *Flush) Written() int { return f.written }

// Len is the size of the flush's batches in bytes.
func (f *Flush) Len() int {
	n := 0
	if f.spill != nil {
		n += f.spill.Len()
	}
	for _, p := range f.parts {
		n += p.Len()
	}
	return n
}

// ApplyTo adds the flush's writes to pb, in order: the spill first, so that
// a key written again after its eviction ends with its newer value.
func (f *Flush) ApplyTo(pb *pebble.Batch) error {
	if f.spill != nil {
		if err := pb.Apply(f.spill, nil); err != nil {
			return fmt.Errorf("state: flush evicted entries: %w", err)
		}
	}
	for _, p := range f.parts {
		if err := pb.Apply(p, nil); err != nil {
			return fmt.Errorf("state: flush: %w", err)
		}
	}
	return nil
}

// BeginFlush cuts the state: the writes since the last cut become a flight
// that FlushStep encodes, and later writes belong to the next cut. It does
// work proportional to the dirty set only when evicted values with an expiry
// must be checked (FORMAT.md §3.1). It fails with ErrInBatch inside a guest
// batch and with ErrFlushPending while the previous flight has not ended.
func (b *Backend) BeginFlush() error { return b.beginFlush(nil) }

func (b *Backend) beginFlush(ext *pebble.Batch) error {
	switch {
	case b.closed:
		return ErrClosed
	case b.undo.open:
		return fmt.Errorf("%w: operator %q: a flush inside a guest batch would persist writes that may be rolled back",
			ErrInBatch, b.opts.Operator)
	case b.flight != nil:
		return fmt.Errorf("%w: operator %q: end it before the next cut", ErrFlushPending, b.opts.Operator)
	}
	f := &flight{gen: b.gen, now: b.time.cleanupNow(), list: b.dirty.list, ext: ext}
	if _, err := b.expireSpill(f.now); err != nil {
		return fmt.Errorf("state: operator %q: flush evicted entries: %w", b.opts.Operator, err)
	}
	if b.spill != nil {
		f.spill, f.spilled, f.written = b.spill, len(b.spill.Repr()), int(b.spill.Count())
		if ext != nil {
			if err := ext.Apply(b.spill, nil); err != nil {
				return fmt.Errorf("state: operator %q: flush evicted entries: %w", b.opts.Operator, err)
			}
		}
	}
	b.spill, b.spillExpiry = nil, false
	b.dirty = dirtySet{list: b.spareList[:0]}
	b.spareList = nil
	b.gen++
	b.flight = f
	if ext == nil {
		b.prepareParts(f)
	}
	return nil
}

// defaultEntryBytes is the estimated stored size of an entry before any
// flight measured it.
const defaultEntryBytes = 64

// prepareParts starts allocating the parts f will need beyond the spare
// ones, on another goroutine.
func (b *Backend) prepareParts(f *flight) {
	per := b.entryBytes
	if per == 0 {
		per = defaultEntryBytes
	}
	need := (len(f.list)*per)/(partBytes-partSlack) + 1 - len(b.spareParts)
	if need <= 0 {
		return
	}
	f.feed = make(chan *pebble.Batch, need)
	db := b.db
	go func() {
		defer close(f.feed)
		for range need {
			f.feed <- newPart(db)
		}
	}()
}

func newPart(db *pebble.DB) *pebble.Batch {
	return db.NewBatch(pebble.WithInitialSizeBytes(partBytes), pebble.WithMaxRetainedSizeBytes(2*partBytes))
}

// FlushStep encodes up to max entries of the flight and reports whether
// all are encoded. Without a flight it reports true.
func (b *Backend) FlushStep(max int) (done bool, err error) {
	f := b.flight
	if f == nil {
		return true, nil
	}
	for end := min(f.next+max, len(f.list)); f.next < end; f.next++ {
		if e := f.list[f.next]; b.pending(e) {
			b.encodePending(e)
		}
	}
	if f.err != nil {
		return false, f.err
	}
	return f.next == len(f.list), nil
}

// Flush returns the encoded flight, to be committed (Flush.ApplyTo) before
// EndFlush. Every entry must be encoded (FlushStep reported done).
func (b *Backend) Flush() (*Flush, error) {
	f := b.flight
	switch {
	case f == nil:
		return nil, fmt.Errorf("%w: operator %q: no flush in progress", ErrInvalidOptions, b.opts.Operator)
	case f.err != nil:
		return nil, f.err
	case f.next < len(f.list):
		return nil, fmt.Errorf("%w: operator %q: %d entries of the flush are not encoded yet", ErrInvalidOptions, b.opts.Operator, len(f.list)-f.next)
	}
	return &Flush{spill: f.spill, parts: f.parts, written: f.written}, nil
}

// EndFlush ends the flight once its Flush is committed: its entries are in
// the store, so they may be evicted again.
func (b *Backend) EndFlush() {
	f := b.flight
	if f == nil {
		return
	}
	b.stats.Flushed += uint64(f.written)
	if len(f.list) > 0 && len(f.parts) > 0 {
		n := 0
		for _, p := range f.parts {
			n += p.Len()
		}
		b.entryBytes = n/len(f.list) + 1
	}
	clear(f.list)
	b.spareList = f.list[:0]
	b.dropFlight()
	b.maybeEvict()
}

// dropFlight releases the flight's batches (EndFlush, Close).
func (b *Backend) dropFlight() {
	f := b.flight
	if f == nil {
		return
	}
	if f.spill != nil {
		f.spill.Close()
	}
	if f.feed != nil {
		for p := range f.feed { // waits for prepareParts, which is short
			f.parts = append(f.parts, p)
		}
	}
	for _, p := range f.parts {
		if len(b.spareParts) < maxSpareParts && !b.closed {
			p.Reset()
			b.spareParts = append(b.spareParts, p)
		} else {
			p.Close()
		}
	}
	b.flight = nil
}

// closeSpareParts releases the reusable parts (Close).
func (b *Backend) closeSpareParts() {
	for _, p := range b.spareParts {
		p.Close()
	}
	b.spareParts = nil
}

// Flushing reports whether a flight has begun and not ended.
func (b *Backend) Flushing() bool { return b.flight != nil }

// FlushOverfull reports whether the cache, which evicts nothing during a
// flight, has grown to twice its capacity: the caller should finish the
// flight now.
func (b *Backend) FlushOverfull() bool {
	return b.flight != nil && b.cache.len() > 2*b.opts.CacheEntries
}

// pending reports whether e holds a value of the flight not yet encoded.
func (b *Backend) pending(e *entry) bool { return e.dirty && e.listGen != b.gen }

// touch must precede every change of a cached entry: a pending entry's cut
// value is encoded before it is overwritten.
func (b *Backend) touch(e *entry) {
	if b.pending(e) {
		b.encodePending(e)
	}
}

// encodePending writes e's value into the flight, a delete if it expired at
// the cut, and marks e clean.
func (b *Backend) encodePending(e *entry) {
	f := b.flight
	if b.expiredAt(e, f.now) {
		dropValue(e)
		b.stats.ExpiredInFlush++
	}
	if err := b.writeEntry(b.flightBatch(f), e); err != nil && f.err == nil {
		f.err = fmt.Errorf("state: operator %q: flush: %w", b.opts.Operator, err)
	}
	e.dirty = false
	f.written++
}

// flightBatch is the batch the next entry is encoded into.
func (b *Backend) flightBatch(f *flight) *pebble.Batch {
	if f.ext != nil {
		return f.ext
	}
	if n := len(f.parts); n > 0 && f.parts[n-1].Len() < partBytes-partSlack {
		return f.parts[n-1]
	}
	var p *pebble.Batch
	if n := len(b.spareParts); n > 0 {
		p, b.spareParts = b.spareParts[n-1], b.spareParts[:n-1]
	} else {
		select {
		case p = <-f.feed: // nil once the feed is closed and empty
		default:
		}
		if p == nil {
			p = newPart(b.db)
		}
	}
	f.parts = append(f.parts, p)
	return p
}
