package state

import "github.com/cockroachdb/pebble/v2"

// Eviction keeps the cache near CacheEntries. It runs only between guest
// batches, so the undo log never points at an evicted entry.
//
// Evicted dirty entries are not written to the store: they go to the spill
// batch, an indexed Pebble batch that reads fall through and that the next
// FlushTo applies ahead of the cached writes. So the store only ever changes
// by committed flushes, and always holds exactly the last consistent cut;
// Pebble checkpoints need no pause of the tasks. RATIONALE.md has the
// trade-off (the spill is memory until the next barrier).

// maybeEvict evicts when the cache grew past its capacity during a batch.
func (b *Backend) maybeEvict() {
	if b.cache.len() > b.evictAt {
		b.evict()
	}
}

// evict removes about an eighth of the capacity, so that its cost is
// amortised over many inserts. Second chance: a pass skips (and clears)
// entries used since the last sweep, then a second pass takes any entry.
// Each sweep starts where the previous one stopped (evictHand), like a clock.
//
// During a flight nothing is evicted: an encoded entry is not in the store
// until the flight is committed, and a new spill would need reads to fall
// through two batches.
func (b *Backend) evict() {
	if b.flight != nil {
		return
	}
	target := b.opts.CacheEntries - max(1, b.opts.CacheEntries/8)
	for pass := 0; pass < 2 && b.cache.len() > target; pass++ {
		// Victims are chosen first and evicted after: removing from the
		// table moves entries, which a walk must not see.
		var victims []*entry
		need := b.cache.len() - target
		b.evictHand += b.cache.each(b.evictHand, func(e *entry) bool {
			if e.ref && pass == 0 {
				e.ref = false
				return true
			}
			victims = append(victims, e)
			return len(victims) < need
		})
		for _, e := range victims {
			b.evictEntry(e)
		}
	}
}

// evictEntry uncaches e, spilling it first when dirty. If the spill write
// fails the entry stays cached: correctness over capacity.
func (b *Backend) evictEntry(e *entry) {
	if e.dirty {
		if b.spill == nil {
			b.spill = b.db.NewIndexedBatch()
		}
		if err := b.writeEntry(b.spill, e); err != nil {
			return
		}
		b.spillExpiry = b.spillExpiry || (e.present && e.hasExpiry)
		b.markClean(e)
		b.stats.Spilled++
	}
	b.uncache(e)
	b.stats.Evictions++
}

// reader is where a cache miss reads: the spill batch over the store, or
// the store alone when nothing was spilled since the last flush. During a
// flight nothing is spilled and the store still holds the previous cut, so
// it is the flight's frozen spill over the store.
func (b *Backend) reader() pebble.Reader {
	switch {
	case b.spill != nil:
		return b.spill
	case b.flight != nil && b.flight.spill != nil:
		return b.flight.spill
	}
	return b.db
}

// closeSpill drops the spill batch (after a flush applied it, or on Close).
func (b *Backend) closeSpill() {
	if b.spill != nil {
		b.spill.Close()
		b.spill, b.spillExpiry = nil, false
	}
}
