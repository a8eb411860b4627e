package state

import (
	"encoding/binary"
	"fmt"
)

// Value flags of state format version 1 (FORMAT.md).
const (
	// flagExpiry: an i64 expiry time in Unix nanoseconds follows the flags.
	flagExpiry = 1 << 0
	// knownFlags is every flag format version 1 defines; any other bit set
	// means the value was written by a newer format.
	knownFlags = flagExpiry
)

// Value is a decoded state value. Data aliases the decoded bytes.
type Value struct {
	Data []byte
	// ExpiresAt is the expiry time in Unix nanoseconds; meaningful only when
	// HasExpiry is set.
	ExpiresAt int64
	HasExpiry bool
}

// AppendValue appends the stored form of v (FORMAT.md):
//
//	u8 flags | [i64 expiresAtUnixNano if flags&1] | value bytes
func AppendValue(dst []byte, v Value) []byte {
	if !v.HasExpiry {
		return append(append(dst, 0), v.Data...)
	}
	dst = append(dst, flagExpiry)
	dst = binary.BigEndian.AppendUint64(dst, uint64(v.ExpiresAt))
	return append(dst, v.Data...)
}

// DecodeValue decodes bytes written by AppendValue. It never panics; bytes
// that do not follow the layout give an error wrapping ErrCorrupt.
func DecodeValue(b []byte) (Value, error) {
	if len(b) == 0 {
		return Value{}, fmt.Errorf("%w: empty state value (the flags byte is missing)", ErrCorrupt)
	}
	flags := b[0]
	if flags&^knownFlags != 0 {
		return Value{}, fmt.Errorf("%w: state value flags %#02x has bits format version %d does not define",
			ErrCorrupt, flags, FormatVersion)
	}
	b = b[1:]
	if flags&flagExpiry == 0 {
		return Value{Data: b}, nil
	}
	if len(b) < 8 {
		return Value{}, fmt.Errorf("%w: state value with expiry flag has %d bytes, need 8 for the expiry", ErrCorrupt, len(b))
	}
	return Value{Data: b[8:], ExpiresAt: int64(binary.BigEndian.Uint64(b)), HasExpiry: true}, nil
}
