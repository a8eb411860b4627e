package state

import (
	"context"
	"errors"

	"github.com/cockroachdb/pebble/v2"
)

// dirtySet lists the entries written since the last cut (BeginFlush or
// FlushTo), so a flush visits them and not the whole cache. Entries that
// became clean again (rolled back, spilled) stay listed with dirty unset and
// are skipped.
type dirtySet struct {
	list []*entry
	n    int // entries with dirty set
}

// add lists e, newly dirty, in the set of generation gen.
func (d *dirtySet) add(e *entry, gen uint64) {
	d.n++
	if e.listGen != gen {
		e.listGen = gen
		d.list = append(d.list, e)
	}
}

// markClean records that e equals what the flushes so far leave in the store.
func (b *Backend) markClean(e *entry) {
	if e.dirty {
		e.dirty = false
		if e.listGen == b.gen {
			b.dirty.n--
		}
	}
}

// FlushTo writes every write since the last flush (the dirty entries and the
// spill batch of evicted ones) into pb, and marks the entries clean. The
// engine flushes all tasks and the source positions (PutMeta) into one
// batch and commits it with Store.Commit: one consistent cut. It is
// BeginFlush, FlushStep until done and EndFlush in one call, writing into
// pb.
//
// Contract: pb must be committed before the backend is used again. Flushed
// entries are clean, so the cache may evict them, and an evicted key is read
// back from the store; in between it would read the previous cut. If FlushTo
// fails, pb must be discarded and the backend closed; so must it if the
// commit of pb fails: the cache no longer matches the store. Recover the
// task from the last checkpoint.
//
// A value that has expired by the time of the flush (FORMAT.md §3.1) is
// written as a delete, so a checkpoint never receives an expired value.
//
// It returns the number of keys written; a key evicted and written again
// since the last flush counts once per write. It fails with ErrInBatch
// while a guest batch is open, and with ErrFlushPending while an
// incremental flush (BeginFlush) has not ended.
func (b *Backend) FlushTo(pb *pebble.Batch) (written int, err error) {
	if err := b.beginFlush(pb); err != nil {
		return 0, err
	}
	if _, err := b.FlushStep(len(b.flight.list)); err != nil {
		return 0, err
	}
	written = b.flight.written
	b.EndFlush()
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

// expireSpill adds to the spill batch the delete of every spilled value
// that has expired at now (a later write in a batch wins), so it never
// reaches the store. It runs at the cut, before the spill is frozen, and
// returns the deletes added.
func (b *Backend) expireSpill(now cleanupTime) (deletes int, err error) {
	if b.spill == nil || !b.spillExpiry {
		return 0, nil
	}
	it, err := b.spill.NewBatchOnlyIter(context.Background(), nil)
	if err != nil {
		return 0, err
	}
	// The deletes go in once the iterator, which reads the spill, is closed.
	var gone [][]byte
	for valid := it.First(); valid; valid = it.Next() {
		expired, err := b.expireSpilled(it, now)
		if err != nil {
			return 0, errors.Join(err, it.Close())
		}
		if expired {
			gone = append(gone, append([]byte(nil), it.Key()...))
		}
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return 0, err
	}
	for _, k := range gone {
		if err := b.spill.Delete(k, nil); err != nil {
			return 0, err
		}
	}
	return len(gone), nil
}

// expireSpilled reports whether the spilled value at it has expired at now
// and must be deleted. A key written again since its eviction is left to
// that write, which the flush writes after the spill; a clean cached copy
// of the value is dropped, so the cache keeps matching the store.
func (b *Backend) expireSpilled(it *pebble.Iterator, now cleanupTime) (bool, error) {
	e := b.cache.get(it.Key()[len(b.prefix):])
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
	return true, nil
}
