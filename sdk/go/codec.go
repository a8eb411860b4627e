package wasmstream

import (
	"encoding/binary"
	"errors"
	"math"
)

// Codec turns state values into bytes and back. Encode appends to dst and
// returns the extended slice (like strconv.AppendInt), so a codec can
// encode without allocating. Decode must not keep b: the SDK reuses it.
type Codec[T any] interface {
	Encode(dst []byte, v T) []byte
	Decode(b []byte) (T, error)
}

// Errors of the codecs of this package, wrapped with the detail.
var (
	// ErrDecode: stored bytes do not decode, most likely because the state
	// was written with another codec or another version of the type.
	ErrDecode = errors.New("wasmstream: state value does not decode with this codec")
	// ErrEncode: the value cannot be encoded (JSONCodec and a NaN, say).
	ErrEncode = errors.New("wasmstream: value cannot be encoded with this codec")
)

// The built-in codecs. Their encodings are part of the checkpointed state:
// they never change.
var (
	// Int64Codec stores an int64 as 8 bytes, little-endian.
	Int64Codec Codec[int64] = int64Codec{}
	// Uint64Codec stores a uint64 as 8 bytes, little-endian.
	Uint64Codec Codec[uint64] = uint64Codec{}
	// Float64Codec stores a float64 as its IEEE 754 bits, 8 bytes, little-endian.
	Float64Codec Codec[float64] = float64Codec{}
	// BoolCodec stores a bool as one byte, 0 or 1.
	BoolCodec Codec[bool] = boolCodec{}
	// StringCodec stores a string's bytes as they are.
	StringCodec Codec[string] = stringCodec{}
	// BytesCodec stores bytes as they are; Decode returns a copy.
	BytesCodec Codec[[]byte] = bytesCodec{}
)

type int64Codec struct{}

func (int64Codec) Encode(dst []byte, v int64) []byte {
	return binary.LittleEndian.AppendUint64(dst, uint64(v))
}

func (int64Codec) Decode(b []byte) (int64, error) {
	u, err := decodeUint64(b)
	return int64(u), err
}

type uint64Codec struct{}

func (uint64Codec) Encode(dst []byte, v uint64) []byte {
	return binary.LittleEndian.AppendUint64(dst, v)
}

func (uint64Codec) Decode(b []byte) (uint64, error) { return decodeUint64(b) }

type float64Codec struct{}

func (float64Codec) Encode(dst []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
}

func (float64Codec) Decode(b []byte) (float64, error) {
	u, err := decodeUint64(b)
	return math.Float64frombits(u), err
}

func decodeUint64(b []byte) (uint64, error) {
	if len(b) != 8 {
		return 0, errEightBytes
	}
	return binary.LittleEndian.Uint64(b), nil
}

var errEightBytes = &detailError{kind: ErrDecode, msg: "want exactly 8 bytes"}

type boolCodec struct{}

func (boolCodec) Encode(dst []byte, v bool) []byte {
	if v {
		return append(dst, 1)
	}
	return append(dst, 0)
}

func (boolCodec) Decode(b []byte) (bool, error) {
	if len(b) != 1 || b[0] > 1 {
		return false, errBoolByte
	}
	return b[0] == 1, nil
}

var errBoolByte = &detailError{kind: ErrDecode, msg: "want one byte, 0 or 1"}

type stringCodec struct{}

func (stringCodec) Encode(dst []byte, v string) []byte { return append(dst, v...) }

func (stringCodec) Decode(b []byte) (string, error) { return string(b), nil }

type bytesCodec struct{}

func (bytesCodec) Encode(dst []byte, v []byte) []byte { return append(dst, v...) }

func (bytesCodec) Decode(b []byte) ([]byte, error) { return append([]byte(nil), b...), nil }
