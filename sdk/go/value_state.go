package wasmstream

// ValueState is one value of type T per key, stored by the host under a
// name. Every call addresses the key of the record being processed, so a
// ValueState is declared once, usually as a package variable, and used
// from Process.
type ValueState[T any] struct {
	name  string
	codec Codec[T]
	enc   encoder[T]
	buf   []byte // encode buffer, reused across Puts
}

// NewValueState returns the state called name (1 to 1024 bytes, no NUL
// byte), encoded with c. It panics on an invalid name or a nil codec: both
// are programming errors.
func NewValueState[T any](name string, c Codec[T]) *ValueState[T] {
	checkStateName("NewValueState", name)
	if c == nil {
		panic("wasmstream: NewValueState " + name + ": nil codec")
	}
	return &ValueState[T]{name: name, codec: c, enc: newEncoder(c)}
}

// Name returns the state name.
func (s *ValueState[T]) Name() string { return s.name }

// Get returns the current key's value. found is false, with no error, when
// the key has none.
func (s *ValueState[T]) Get() (v T, found bool, err error) {
	raw, found, err := getState(stringBytes(s.name))
	if err != nil || !found {
		return v, false, wrapOp("state get", s.name, err)
	}
	if v, err = decodeState(s.codec, raw); err != nil {
		return v, false, opError("state get", s.name, err)
	}
	return v, true, nil
}

// Put sets the current key's value.
func (s *ValueState[T]) Put(v T) error {
	b, err := s.enc.encode(s.buf[:0], v)
	if err != nil {
		return opError("state put", s.name, err)
	}
	s.buf = keepBounded(b)
	return wrapOp("state put", s.name, putState(stringBytes(s.name), b))
}

// Delete removes the current key's value; deleting a missing value is not
// an error.
func (s *ValueState[T]) Delete() error {
	return wrapOp("state delete", s.name, deleteState(stringBytes(s.name)))
}
