package abi

import "encoding/binary"

// Emit is one entry of an emit list (ABI.md §5.3, revision 1.3): an emit
// a guest collected in its own memory and hands over with FuncEmitBatch.
type Emit struct {
	Record  uint32 // index in the batch of the record that caused it
	Output  uint32 // index of the output, from FuncOutputIndex
	Key     []byte
	Value   []byte
	Headers []byte // a header list (§5.2)
}

// emitFixedLen is the size of an emit entry without its bytes.
const emitFixedLen = 4 + 4 + 4 + 4 + 4

// EncodedEmitLen returns the size of e in an emit list.
func EncodedEmitLen(e *Emit) int {
	return emitFixedLen + len(e.Key) + len(e.Value) + len(e.Headers)
}

// AppendEmit appends e to an emit list. An emit list is the concatenation
// of its entries; the empty list is empty.
func AppendEmit(dst []byte, e *Emit) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, e.Record)
	dst = binary.LittleEndian.AppendUint32(dst, e.Output)
	dst = appendBytes(dst, e.Key)
	dst = appendBytes(dst, e.Value)
	return appendBytes(dst, e.Headers)
}

// EmitReader decodes an emit list without copying: the slices of the
// entries it returns point into the list.
type EmitReader struct{ buf []byte }

// NewEmitReader returns a reader of the emit list buf.
func NewEmitReader(buf []byte) EmitReader { return EmitReader{buf: buf} }

// Next decodes the next entry into e; false at the end of the list, or
// ErrMalformed when the entry is truncated.
func (er *EmitReader) Next(e *Emit) (bool, error) {
	b := er.buf
	if len(b) == 0 {
		return false, nil
	}
	if len(b) < 8 {
		return false, ErrMalformed
	}
	e.Record = binary.LittleEndian.Uint32(b)
	e.Output = binary.LittleEndian.Uint32(b[4:])
	var ok bool
	if e.Key, b, ok = cutBytes(b[8:]); !ok {
		return false, ErrMalformed
	}
	if e.Value, b, ok = cutBytes(b); !ok {
		return false, ErrMalformed
	}
	if e.Headers, b, ok = cutBytes(b); !ok {
		return false, ErrMalformed
	}
	er.buf = b
	return true, nil
}
