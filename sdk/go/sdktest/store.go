//go:build !wasip1

package sdktest

// stateID addresses one state value: a record key and a state name.
type stateID struct{ key, name string }

// store is keyed state with a pending layer for the batch being processed,
// so that a failed batch leaves no partial writes, as on the host.
type store struct {
	committed map[stateID][]byte
	expiry    map[stateID]int64 // expiry of committed values with a TTL, Unix ns
	pending   map[stateID]pendingWrite
}

// pendingWrite is a put (value, expiry: 0 = none) or a delete (deleted)
// not yet committed.
type pendingWrite struct {
	value   []byte
	expiry  int64
	deleted bool
}

func newStore() *store {
	return &store{committed: map[stateID][]byte{}, expiry: map[stateID]int64{}, pending: map[stateID]pendingWrite{}}
}

// get returns the value as the batch sees it, its own writes first, and
// its expiry (0: none).
func (s *store) get(id stateID) (value []byte, found bool, expiry int64) {
	if w, ok := s.pending[id]; ok {
		return w.value, !w.deleted, w.expiry
	}
	v, ok := s.committed[id]
	return v, ok, s.expiry[id]
}

// put records a copy of value in the pending layer, expiring at expiry
// (0: never).
func (s *store) put(id stateID, value []byte, expiry int64) {
	s.pending[id] = pendingWrite{value: append([]byte{}, value...), expiry: expiry}
}

func (s *store) delete(id stateID) {
	s.pending[id] = pendingWrite{deleted: true}
}

// commit applies the pending writes.
func (s *store) commit() {
	for id, w := range s.pending {
		delete(s.expiry, id)
		if w.deleted {
			delete(s.committed, id)
			continue
		}
		s.committed[id] = w.value
		if w.expiry != 0 {
			s.expiry[id] = w.expiry
		}
	}
	clear(s.pending)
}

// rollback drops the pending writes.
func (s *store) rollback() { clear(s.pending) }
