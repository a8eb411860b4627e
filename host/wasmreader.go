package host

import (
	"errors"
	"fmt"
	"math"
)

// wasmReader reads LEB128 integers and bytes from a module.
type wasmReader struct {
	b   []byte
	pos int
}

var errTruncated = errStructure("truncated")

func errStructure(msg string) error { return &structureError{msg: msg} }

// structureError is a module that is malformed: its bytes do not hold
// what its counts and sizes claim.
type structureError struct{ msg string }

func (e *structureError) Error() string { return e.msg }

// IsStructureError reports an error of CheckStructure about malformed bytes
// (not a limit: see ErrModuleLimit).
func IsStructureError(err error) bool {
	var se *structureError
	return errors.As(err, &se)
}

func (r *wasmReader) left() int { return len(r.b) - r.pos }

func (r *wasmReader) byte() (byte, error) {
	if r.pos >= len(r.b) {
		return 0, errTruncated
	}
	r.pos++
	return r.b[r.pos-1], nil
}

// u32 reads an unsigned LEB128 of at most 5 bytes.
func (r *wasmReader) u32() (uint32, error) {
	var v uint64
	for shift := 0; shift < 35; shift += 7 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			if v > 1<<32-1 {
				return 0, errStructure("integer over 32 bits")
			}
			return uint32(v), nil
		}
	}
	return 0, errStructure("integer longer than 5 bytes")
}

// skipLEB skips a signed or unsigned LEB128 of at most 5 bytes (an s33
// heap type fits).
func (r *wasmReader) skipLEB() error {
	for i := 0; i < 5; i++ {
		c, err := r.byte()
		if err != nil || c&0x80 == 0 {
			return err
		}
	}
	return errStructure("integer longer than 5 bytes")
}

// skip moves past n bytes.
func (r *wasmReader) skip(n uint32) error {
	if uint64(n) > uint64(r.left()) {
		return errTruncated
	}
	r.pos += int(n)
	return nil
}

// vectorCount reads a vector's count and refuses one larger than the
// bytes left: every entry takes at least one byte.
func (r *wasmReader) vectorCount() (uint32, error) {
	n, err := r.u32()
	if err != nil {
		return 0, err
	}
	if uint64(n) > uint64(r.left()) {
		return 0, errStructure(fmt.Sprintf("a vector claims %d entries, %d bytes are left", n, r.left()))
	}
	return n, nil
}

// Reference type prefixes of the function-references encoding: a heap
// type follows.
const (
	refNullPrefix = 0x63
	refPrefix     = 0x64
)

// valType skips a value type: one byte, or a reference prefix and a heap type.
func (r *wasmReader) valType() error {
	b, err := r.byte()
	if err == nil && (b == refNullPrefix || b == refPrefix) {
		err = r.skipLEB()
	}
	return err
}

// limits reads a limits type: flags (bit 0: a maximum follows; bit 1:
// shared), min and the optional max.
func (r *wasmReader) limits() (min uint32, max uint32, hasMax bool, err error) {
	flags, err := r.byte()
	if err != nil {
		return 0, 0, false, err
	}
	if flags > 3 {
		return 0, 0, false, errStructure(fmt.Sprintf("limits flags %#x are not 0 to 3", flags))
	}
	if min, err = r.u32(); err != nil || flags&1 == 0 {
		return min, 0, false, err
	}
	max, err = r.u32()
	return min, max, true, err
}

// s32 reads a signed LEB128 of at most 5 bytes that fits 32 bits.
func (r *wasmReader) s32() (int32, error) {
	var v int64
	for shift := 0; shift < 35; shift += 7 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= int64(c&0x7f) << shift
		if c&0x80 == 0 {
			if c&0x40 != 0 {
				v |= -1 << (shift + 7) // sign extension
			}
			if v < math.MinInt32 || v > math.MaxInt32 {
				return 0, errStructure("integer over 32 bits")
			}
			return int32(v), nil
		}
	}
	return 0, errStructure("integer longer than 5 bytes")
}
