package state

// Stats are the counters of a backend, for metrics. Counters only grow.
type Stats struct {
	Entries     int    // entries cached (present or known absent)
	Dirty       int    // cached entries written since the last flush
	SpillBytes  int    // bytes of evicted writes held for the next flush
	Hits        uint64 // Get answered by the cache
	Misses      uint64 // Get that had to read the store
	PebbleReads uint64 // point reads of the store (or the spill batch)
	Evictions   uint64 // entries evicted
	Spilled     uint64 // dirty entries evicted into the spill batch
	Flushed     uint64 // keys written by FlushTo
}

// Stats returns the backend's counters. Call it from the task goroutine.
func (b *Backend) Stats() Stats {
	s := b.stats
	s.Entries = len(b.cache)
	s.Dirty = b.dirty.n
	if b.spill != nil {
		s.SpillBytes = len(b.spill.Repr())
	}
	return s
}
