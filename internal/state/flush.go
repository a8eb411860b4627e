package state

import (
	"context"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// dirtySet lists the entries written since the last flush, so a flush
// visits them and not the whole cache. Entries that became clean again
// (rolled back, spilled) stay listed with dirty unset and are skipped.
type dirtySet struct {
	list []*entry
	n    int // entries with dirty set
}

func (d *dirtySet) add(e *entry) {
	d.n++
	if !e.listed {
		e.listed = true
		d.list = append(d.list, e)
	}
}

func (d *dirtySet) reset() {
	for _, e := range d.list {
		e.listed = false
		e.dirty = false
	}
	clear(d.list)
	d.list = d.list[:0]
	d.n = 0
}

// markClean records that e equals what the next flush leaves in the store.
func (b *Backend) markClean(e *entry) {
	if e.dirty {
		e.dirty = false
		b.dirty.n--
	}
}

// FlushTo writes every write since the last flush (the dirty entries and the
// spill batch of evicted ones) into pb, and marks the entries clean. The
// engine flushes all tasks and the source positions (PutMeta) into one
// batch and commits it with Store.Commit: one consistent cut.
//
// Contract: pb must be committed before the backend is used again. Flushed
// entries are clean, so the cache may evict them, and an evicted key is read
// back from the store; in between it would read the previous cut. If FlushTo
// fails, nothing is marked clean and pb must be discarded. If the commit of
// pb fails, the cache no longer matches the store: close the backend and
// recover the task from the last checkpoint.
//
// A value that has expired by the time of the flush (FORMAT.md §3.1) is
// written as a delete, so a checkpoint never receives an expired value.
//
// It returns the number of keys written; a key evicted and written again
// since the last flush counts once per write. It fails with ErrInBatch
// while a guest batch is open.
func (b *Backend) FlushTo(pb *pebble.Batch) (written int, err error) {
	if b.closed {
		return 0, ErrClosed
	}
	if b.undo.open {
		return 0, fmt.Errorf("%w: operator %q: FlushTo inside a guest batch would persist writes that may be rolled back",
			ErrInBatch, b.opts.Operator)
	}
	now := b.time.cleanupNow()
	// The spill goes first: a key re-written after its eviction must end
	// with its newer value, and later records of a batch win.
	if b.spill != nil {
		deletes, err := b.applySpill(pb, now)
		if err != nil {
			return 0, fmt.Errorf("state: operator %q: flush evicted entries: %w", b.opts.Operator, err)
		}
		written += int(b.spill.Count()) + deletes
	}
	for _, e := range b.dirty.list {
		if !e.dirty {
			continue
		}
		if b.expiredAt(e, now) {
			dropValue(e)
			b.stats.ExpiredInFlush++
		}
		if err := b.writeEntry(pb, e); err != nil {
			return written, fmt.Errorf("state: operator %q: flush: %w", b.opts.Operator, err)
		}
		written++
	}
	b.dirty.reset()
	b.closeSpill()
	b.stats.Flushed += uint64(written)
	return written, nil
}

// writeEntry adds e's stored form to w: a Set, or a Delete when absent.
func (b *Backend) writeEntry(w *pebble.Batch, e *entry) error {
	b.pebKey = append(append(b.pebKey[:0], b.prefix...), e.key...)
	if !e.present {
		return w.Delete(b.pebKey, nil)
	}
	b.valBuf = AppendValue(b.valBuf[:0], Value{Data: e.value, ExpiresAt: e.expiresAt, HasExpiry: e.hasExpiry})
	return w.Set(b.pebKey, b.valBuf, nil)
}

// applySpill adds the spill batch to pb. When the spill holds values with
// an expiry, the last spilled value of each key is checked too, and one that
// has expired at now is followed in pb by its delete (a later write in a
// batch wins), so it never reaches the store. It returns the deletes added.
func (b *Backend) applySpill(pb *pebble.Batch, now cleanupTime) (deletes int, err error) {
	if err := pb.Apply(b.spill, nil); err != nil || !b.spillExpiry {
		return 0, err
	}
	it, err := b.spill.NewBatchOnlyIter(context.Background(), nil)
	if err != nil {
		return 0, err
	}
	for valid := it.First(); valid; valid = it.Next() {
		gone, err := b.expireSpilled(pb, it, now)
		if err != nil {
			return deletes, errors.Join(err, it.Close())
		}
		if gone {
			deletes++
		}
	}
	return deletes, errors.Join(it.Error(), it.Close())
}

// expireSpilled adds to pb the delete of the spilled value at it if it has
// expired at now. A key written again since its eviction is left to that
// write, which follows in pb; a clean cached copy of the value is dropped
// with it, so the cache keeps matching the store.
func (b *Backend) expireSpilled(pb *pebble.Batch, it *pebble.Iterator, now cleanupTime) (bool, error) {
	e := b.cache[string(it.Key()[len(b.prefix):])]
	if e != nil && e.dirty {
		return false, nil
	}
	raw, err := it.ValueAndErr()
	if err != nil {
		return false, err
	}
	v, err := DecodeValue(raw)
	if err != nil || !v.HasExpiry {
		return false, err
	}
	c, _ := b.ttlFor(groupKeyName(it.Key()[len(b.prefix):]))
	if !now.expired(v.ExpiresAt, c.TimeDomain) {
		return false, nil
	}
	if e != nil {
		dropValue(e)
	}
	b.stats.ExpiredInFlush++
	return true, pb.Delete(it.Key(), nil)
}
