package state

// Stats are the counters of a backend, for metrics. Counters only grow;
// Entries, Dirty, SpillBytes, LiveEntries and LiveBytes are gauges.
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

	// TTL (FORMAT.md §3.1).
	Refreshed       uint64 // expiries a Get extended (OnReadAndWrite)
	Adopted         uint64 // values without expiry given one because their name has a TTL now (by Get or Sweep)
	ExpiredOnAccess uint64 // expired values a Get found and dropped (NeverReturnExpired)
	ExpiredInFlush  uint64 // written values FlushTo found expired and wrote as deletes
	ExpiredInSweep  uint64 // expired entries Sweep deleted
	Swept           uint64 // entries Sweep visited
	SweepPasses     uint64 // Sweep passes completed over the task's key-group range

	// LiveEntries and LiveBytes are the size of the task's state as the last
	// complete Sweep pass saw it: the entries it left in place (live, or
	// with newer writes in the cache) and their Pebble key and stored value
	// bytes. An estimate: the pass spans many calls, and writes not yet
	// flushed or evicted are not counted. Zero until SweepPasses > 0.
	LiveEntries int64
	LiveBytes   int64
}

// Expired returns the number of expired entries removed, by any path.
func (s Stats) Expired() uint64 { return s.ExpiredOnAccess + s.ExpiredInFlush + s.ExpiredInSweep }

// Stats returns the backend's counters. Call it from the task goroutine.
func (b *Backend) Stats() Stats {
	s := b.stats
	s.Entries = b.cache.len()
	s.Dirty = b.dirty.n
	if b.spill != nil {
		s.SpillBytes = len(b.spill.Repr())
	}
	if b.flight != nil {
		s.SpillBytes += b.flight.spilled
	}
	return s
}
