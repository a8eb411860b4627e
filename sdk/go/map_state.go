package wasmstream

import (
	"strconv"

	"github.com/wasmstream/wasmstream/abi"
)

// MapState is a map from K to V per key, stored by the host as one state
// entry per map key, named name + "\x00" + mapKey. Like ValueState, every
// call addresses the key of the record being processed. The ABI has no
// scan, so a MapState cannot be listed: keep an index in a ValueState when
// you need one.
type MapState[K ~string, V any] struct {
	name  string
	codec Codec[V]
	enc   encoder[V]
	entry []byte // name + NUL, followed by the map key of the current call
	buf   []byte // encode buffer, reused across Puts
}

// NewMapState returns the map state called name (1 to 1023 bytes, no NUL
// byte), whose values are encoded with c. It panics on an invalid name or a
// nil codec: both are programming errors.
func NewMapState[K ~string, V any](name string, c Codec[V]) *MapState[K, V] {
	checkStateName("NewMapState", name)
	if len(name) >= abi.MaxStateNameLen {
		panic("wasmstream: NewMapState: map name leaves no room for keys within 1024 bytes")
	}
	if c == nil {
		panic("wasmstream: NewMapState " + name + ": nil codec")
	}
	entry := append(make([]byte, 0, len(name)+1+32), name...)
	return &MapState[K, V]{name: name, codec: c, enc: newEncoder(c), entry: append(entry, 0)}
}

// Name returns the map's state name.
func (m *MapState[K, V]) Name() string { return m.name }

// MaxKeyLen returns the longest map key this map accepts: entry names are
// at most 1024 bytes, the map's name and a separator included.
func (m *MapState[K, V]) MaxKeyLen() int { return abi.MaxStateNameLen - len(m.name) - 1 }

// entryName returns the host name of k's entry in a reused buffer.
func (m *MapState[K, V]) entryName(k K) ([]byte, error) {
	if len(k) > m.MaxKeyLen() {
		return nil, &detailError{kind: ErrBadArgument,
			msg: "map key of " + strconv.Itoa(len(k)) + " bytes is over MaxKeyLen " + strconv.Itoa(m.MaxKeyLen())}
	}
	prefix := len(m.name) + 1
	m.entry = append(m.entry[:prefix], k...)
	return m.entry, nil
}

// opName names k's entry in errors: name[key].
func (m *MapState[K, V]) opName(k K) string { return m.name + "[" + string(k) + "]" }

// Get returns the value under k for the current key. found is false, with
// no error, when there is none.
func (m *MapState[K, V]) Get(k K) (v V, found bool, err error) {
	name, err := m.entryName(k)
	if err != nil {
		return v, false, opError("map get", m.opName(k), err)
	}
	raw, found, err := getState(name)
	if err != nil || !found {
		return v, false, m.wrap("map get", k, err)
	}
	if v, err = decodeState(m.codec, raw); err != nil {
		return v, false, opError("map get", m.opName(k), err)
	}
	return v, true, nil
}

// Put sets the value under k for the current key.
func (m *MapState[K, V]) Put(k K, v V) error {
	name, err := m.entryName(k)
	if err != nil {
		return opError("map put", m.opName(k), err)
	}
	b, err := m.enc.encode(m.buf[:0], v)
	if err != nil {
		return opError("map put", m.opName(k), err)
	}
	m.buf = keepBounded(b)
	return m.wrap("map put", k, putState(name, b))
}

// Delete removes k for the current key; deleting a missing entry is not an
// error.
func (m *MapState[K, V]) Delete(k K) error {
	name, err := m.entryName(k)
	if err != nil {
		return opError("map delete", m.opName(k), err)
	}
	return m.wrap("map delete", k, deleteState(name))
}

// wrap names k's entry in err, keeping nil as nil without building the name.
func (m *MapState[K, V]) wrap(op string, k K, err error) error {
	if err == nil {
		return nil
	}
	return opError(op, m.opName(k), err)
}
