package host

import "errors"

// memState is an in-memory KeyedState with the same batch semantics as the
// Pebble-backed one, for tests of the host alone.
type memState struct {
	cur   string
	data  map[string][]byte
	undo  map[string]*[]byte
	inTxn bool
}

func newMemState() *memState { return &memState{data: map[string][]byte{}} }

var errForbiddenKey = errors.New("forbidden key")

func (m *memState) SetCurrentRecord(key []byte, _ int64) error {
	if string(key) == "forbidden" {
		return errForbiddenKey
	}
	m.cur = string(key)
	return nil
}

func (m *memState) k(name []byte) string { return m.cur + "/" + string(name) }

func (m *memState) Get(name []byte) ([]byte, bool, error) {
	v, ok := m.data[m.k(name)]
	return v, ok, nil
}

func (m *memState) remember(k string) {
	if !m.inTxn {
		return
	}
	if _, seen := m.undo[k]; seen {
		return
	}
	if v, ok := m.data[k]; ok {
		m.undo[k] = &v
	} else {
		m.undo[k] = nil
	}
}

func (m *memState) Put(name, value []byte) error {
	k := m.k(name)
	m.remember(k)
	m.data[k] = append([]byte(nil), value...)
	return nil
}

func (m *memState) Delete(name []byte) error {
	k := m.k(name)
	m.remember(k)
	delete(m.data, k)
	return nil
}

func (m *memState) BeginBatch()  { m.inTxn, m.undo = true, map[string]*[]byte{} }
func (m *memState) CommitBatch() { m.inTxn, m.undo = false, nil }
func (m *memState) RollbackBatch() {
	for k, v := range m.undo {
		if v == nil {
			delete(m.data, k)
		} else {
			m.data[k] = *v
		}
	}
	m.inTxn, m.undo = false, nil
}
