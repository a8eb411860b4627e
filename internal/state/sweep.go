package state

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// sweepState is Sweep's place in the task's key range and the tally of its
// current pass.
type sweepState struct {
	lo, hi []byte // the task's state keys in the store: [lo, hi)
	cursor []byte // the first key the next call visits; empty: a new pass
	next   []byte // the cursor being written while the iterator reads cursor

	passEntries, passBytes int64

	// Writes found during a call, made once its iterator is closed (the
	// iterator may be reading the spill batch they go to).
	pending []sweepWrite
	arena   []byte
}

// sweepWrite is one pending write: a delete, or a value given an expiry.
type sweepWrite struct {
	key, val [2]int // [offset, end) in arena
	del      bool
}

// Sweep is the incremental cleanup of expired state. It visits up to
// maxEntries entries of the task's key-group range in key order, starting
// where the previous call stopped, and returns how many expired entries it
// deleted. A call stops at the end of the range; the next starts a new pass.
// The engine calls it between guest batches with a small budget.
//
// It reads the store through the spill batch (what the last flush left
// plus evicted writes). An entry with a write in the cache is skipped: that
// write supersedes the stored value, and FlushTo checks its expiry. Deletes
// are written like evicted writes, into the spill, so they reach the store
// with the next FlushTo and the store still changes only by committed cuts.
//
// A value without an expiry whose name has a TTL now is given one (now +
// Duration), so state written before the TTL was configured is bounded
// too. Event-time expiries are measured against the largest event time the
// backend has seen; before it has seen one they are left alone.
//
// Each call updates Stats (Swept, ExpiredInSweep, Adopted) and, when a pass
// completes, LiveEntries and LiveBytes. Sweep fails with ErrInBatch inside
// a guest batch; maxEntries < 1 does nothing, and so does a call during an
// incremental flush (BeginFlush to EndFlush), whose writes would need a spill.
func (b *Backend) Sweep(maxEntries int) (expired int, err error) {
	if b.closed {
		return 0, ErrClosed
	}
	if b.undo.open {
		return 0, fmt.Errorf("%w: operator %q: Sweep runs between guest batches", ErrInBatch, b.opts.Operator)
	}
	if maxEntries < 1 || b.flight != nil {
		return 0, nil
	}
	expired, err = b.sweepScan(maxEntries, b.time.cleanupNow())
	if err == nil {
		err = b.applySweepWrites()
	}
	b.sweep.pending, b.sweep.arena = b.sweep.pending[:0], b.sweep.arena[:0]
	b.stats.ExpiredInSweep += uint64(expired)
	if err != nil {
		return expired, fmt.Errorf("state: operator %q: sweep: %w", b.opts.Operator, err)
	}
	return expired, nil
}

// sweepScan visits up to maxEntries entries from the cursor.
func (b *Backend) sweepScan(maxEntries int, now cleanupTime) (expired int, err error) {
	sw := &b.sweep
	lo := sw.lo
	if len(sw.cursor) > 0 {
		lo = sw.cursor
	}
	it, err := b.reader().NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: sw.hi})
	if err != nil {
		return 0, err
	}
	visited, more := 0, false
	for valid := it.First(); valid; valid = it.Next() {
		if visited == maxEntries {
			sw.next, more = append(sw.next[:0], it.Key()...), true
			break
		}
		visited++
		gone, err := b.sweepEntry(it, now)
		if err != nil {
			return expired, errors.Join(err, it.Close())
		}
		if gone {
			expired++
		}
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return expired, err
	}
	b.stats.Swept += uint64(visited)
	if more {
		sw.cursor, sw.next = sw.next, sw.cursor
	} else {
		b.endSweepPass()
	}
	return expired, nil
}

// endSweepPass publishes the pass's tally and starts a new pass.
func (b *Backend) endSweepPass() {
	sw := &b.sweep
	b.stats.LiveEntries, b.stats.LiveBytes = sw.passEntries, sw.passBytes
	b.stats.SweepPasses++
	sw.passEntries, sw.passBytes, sw.cursor = 0, 0, sw.cursor[:0]
}

// sweepEntry cleans up the entry at it and reports whether it was deleted.
func (b *Backend) sweepEntry(it *pebble.Iterator, now cleanupTime) (gone bool, err error) {
	k := it.Key()
	raw, err := it.ValueAndErr()
	if err != nil {
		return false, err
	}
	sk, err := DecodeStateKey(k)
	if err != nil {
		return false, err
	}
	if e := b.cache.get(k[len(b.prefix):]); e != nil {
		gone = b.sweepCached(e, now)
	} else if gone, err = b.sweepStored(k, raw, sk.Name, now); err != nil {
		return false, fmt.Errorf("key group %d, state %q: %w", sk.KeyGroup, sk.Name, err)
	}
	if !gone {
		b.sweep.passEntries++
		b.sweep.passBytes += int64(len(k) + len(raw))
	}
	return gone, nil
}

// sweepCached cleans up an entry the cache holds, through the cache (a
// clean entry equals the stored one).
func (b *Backend) sweepCached(e *entry, now cleanupTime) bool {
	if e.dirty || !e.present {
		return false
	}
	c, hasTTL := b.ttlOf(e)
	switch {
	case !now.available(c.TimeDomain):
	case !e.hasExpiry && hasTTL:
		b.setExpiry(e, expiryAfter(now.in(c.TimeDomain), c.Duration))
		b.stats.Adopted++
	case e.hasExpiry && now.expired(e.expiresAt, c.TimeDomain):
		b.touch(e)
		dropValue(e)
		b.markDirty(e)
		return true
	}
	return false
}

// sweepStored cleans up an entry only in the store (or the spill).
func (b *Backend) sweepStored(k, raw, name []byte, now cleanupTime) (gone bool, err error) {
	v, err := DecodeValue(raw)
	if err != nil {
		return false, err
	}
	c, hasTTL := b.ttlFor(name)
	switch {
	case !now.available(c.TimeDomain):
	case !v.HasExpiry && hasTTL:
		v.HasExpiry, v.ExpiresAt = true, expiryAfter(now.in(c.TimeDomain), c.Duration)
		b.sweep.add(k, v)
		b.stats.Adopted++
	case v.HasExpiry && now.expired(v.ExpiresAt, c.TimeDomain):
		b.sweep.add(k, Value{})
		return true, nil
	}
	return false, nil
}

// add queues a write of key: v when it has an expiry, a delete otherwise.
func (sw *sweepState) add(key []byte, v Value) {
	w := sweepWrite{del: !v.HasExpiry}
	w.key[0] = len(sw.arena)
	sw.arena = append(sw.arena, key...)
	w.key[1] = len(sw.arena)
	if v.HasExpiry {
		sw.arena = AppendValue(sw.arena, v)
	}
	w.val = [2]int{w.key[1], len(sw.arena)}
	sw.pending = append(sw.pending, w)
}

// applySweepWrites writes the pending writes into the spill batch.
func (b *Backend) applySweepWrites() error {
	sw := &b.sweep
	if len(sw.pending) > 0 && b.spill == nil {
		b.spill = b.db.NewIndexedBatch()
	}
	for _, w := range sw.pending {
		key := sw.arena[w.key[0]:w.key[1]]
		var err error
		if w.del {
			err = b.spill.Delete(key, nil)
		} else {
			err = b.spill.Set(key, sw.arena[w.val[0]:w.val[1]], nil)
			b.spillExpiry = true
		}
		if err != nil {
			return err
		}
	}
	return nil
}
