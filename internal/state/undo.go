package state

// undoLog makes a guest batch atomic: the first write of each entry within
// the batch saves the entry's pre-image, and a rollback restores the
// pre-images in reverse. Cheaper than an overlay map because reads, the
// common case, pay nothing, and a commit only forgets the log.
type undoLog struct {
	open  bool
	seq   uint64 // the open batch; entry.undoSeq == seq means already saved
	recs  []undoRec
	arena []byte // pre-image values, so saving one never allocates per entry
}

// undoRec is the pre-image of one entry.
type undoRec struct {
	e         *entry
	existed   bool // false: the batch created the entry; rollback uncaches it
	present   bool
	dirty     bool
	hasExpiry bool
	expiresAt int64
	off, n    int // value bytes in undoLog.arena
}

// maxRetainedArena bounds the memory a large batch leaves behind.
const maxRetainedArena = 4 << 20

// save records e's pre-image on its first write in the open batch.
func (u *undoLog) save(e *entry) {
	if !u.open || e.undoSeq == u.seq {
		return
	}
	e.undoSeq = u.seq
	off := len(u.arena)
	u.arena = append(u.arena, e.value...)
	u.recs = append(u.recs, undoRec{e: e, existed: true, present: e.present, dirty: e.dirty,
		hasExpiry: e.hasExpiry, expiresAt: e.expiresAt, off: off, n: len(e.value)})
}

// saveNew records that the open batch created e.
func (u *undoLog) saveNew(e *entry) {
	if !u.open {
		return
	}
	e.undoSeq = u.seq
	u.recs = append(u.recs, undoRec{e: e})
}

// reset forgets the log and closes the batch.
func (u *undoLog) reset() {
	clear(u.recs) // drop entry pointers so evicted entries can be collected
	u.recs = u.recs[:0]
	u.arena = u.arena[:0]
	if cap(u.arena) > maxRetainedArena {
		u.arena = nil
	}
	u.open = false
}

// BeginBatch starts a guest batch: every state write until CommitBatch or
// RollbackBatch is undone by RollbackBatch. Batches do not nest; BeginBatch
// inside an open batch is a programming error and panics.
func (b *Backend) BeginBatch() {
	if b.undo.open {
		panic("state: BeginBatch while a batch is open; call CommitBatch or RollbackBatch first")
	}
	b.undo.open = true
	b.undo.seq++
}

// CommitBatch keeps the writes of the open batch (in the cache; FlushTo
// persists them). Without an open batch it does nothing.
func (b *Backend) CommitBatch() {
	if !b.undo.open {
		return
	}
	b.undo.reset()
	b.maybeEvict()
}

// RollbackBatch discards every state write of the open batch, so a failed
// guest batch leaves no partial writes. Reads of the batch stay cached: they
// reflect the store. What reads did under a TTL (an expired value dropped,
// an expiry extended or first given) is undone too. Without an open batch it
// does nothing.
func (b *Backend) RollbackBatch() {
	if !b.undo.open {
		return
	}
	u := &b.undo
	for i := len(u.recs) - 1; i >= 0; i-- {
		b.restore(&u.recs[i], u.arena)
	}
	u.reset()
	b.maybeEvict()
}

// restore puts one pre-image back.
func (b *Backend) restore(r *undoRec, arena []byte) {
	e := r.e
	e.undoSeq = 0
	if !r.existed {
		b.markClean(e)
		b.uncache(e)
		return
	}
	e.present, e.hasExpiry, e.expiresAt = r.present, r.hasExpiry, r.expiresAt
	e.value = append(e.value[:0], arena[r.off:r.off+r.n]...)
	if r.dirty {
		b.markDirty(e)
	} else {
		b.markClean(e)
	}
}

// InBatch reports whether a guest batch is open.
func (b *Backend) InBatch() bool { return b.undo.open }
