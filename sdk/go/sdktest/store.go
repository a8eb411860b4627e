//go:build !wasip1

package sdktest

// stateID addresses one state value: a record key and a state name.
type stateID struct{ key, name string }

// store is keyed state with a pending layer for the batch being processed,
// so that a failed batch leaves no partial writes, as on the host.
type store struct {
	committed map[stateID][]byte
	pending   map[stateID]pendingWrite
}

// pendingWrite is a put (value) or a delete (deleted) not yet committed.
type pendingWrite struct {
	value   []byte
	deleted bool
}

func newStore() *store {
	return &store{committed: map[stateID][]byte{}, pending: map[stateID]pendingWrite{}}
}

// get returns the value as the batch sees it: its own writes first.
func (s *store) get(id stateID) ([]byte, bool) {
	if w, ok := s.pending[id]; ok {
		return w.value, !w.deleted
	}
	v, ok := s.committed[id]
	return v, ok
}

// put records a copy of value in the pending layer.
func (s *store) put(id stateID, value []byte) {
	s.pending[id] = pendingWrite{value: append([]byte{}, value...)}
}

func (s *store) delete(id stateID) {
	s.pending[id] = pendingWrite{deleted: true}
}

// commit applies the pending writes.
func (s *store) commit() {
	for id, w := range s.pending {
		if w.deleted {
			delete(s.committed, id)
		} else {
			s.committed[id] = w.value
		}
	}
	clear(s.pending)
}

// rollback drops the pending writes.
func (s *store) rollback() { clear(s.pending) }
