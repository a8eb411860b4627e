package wasmstream

import (
	"encoding/json"
)

// JSONCodec returns a codec that stores values as JSON with encoding/json.
// It is the convenient choice for structs; it allocates on every call, so
// prefer the fixed-size codecs on a hot path.
//
// A value JSON cannot represent (a NaN, a channel) makes Encode panic, but
// ValueState.Put and MapState.Put return that failure as an error.
func JSONCodec[T any]() Codec[T] { return jsonCodec[T]{} }

type jsonCodec[T any] struct{}

func (c jsonCodec[T]) Encode(dst []byte, v T) []byte {
	b, err := c.tryEncode(dst, v)
	if err != nil {
		panic(err)
	}
	return b
}

func (jsonCodec[T]) tryEncode(dst []byte, v T) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return dst, &detailError{kind: ErrEncode, msg: err.Error()}
	}
	return append(dst, b...), nil
}

func (jsonCodec[T]) Decode(b []byte) (T, error) {
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return v, &detailError{kind: ErrDecode, msg: err.Error()}
	}
	return v, nil
}

// fallibleEncoder is implemented by codecs whose encoding can fail, so
// that the state handles can report the failure instead of panicking.
type fallibleEncoder[T any] interface {
	tryEncode(dst []byte, v T) ([]byte, error)
}

// encoder wraps a Codec's Encode, using tryEncode when the codec has one.
// It is resolved once, when a state handle is created.
type encoder[T any] struct {
	codec Codec[T]
	try   fallibleEncoder[T]
}

func newEncoder[T any](c Codec[T]) encoder[T] {
	f, _ := c.(fallibleEncoder[T])
	return encoder[T]{codec: c, try: f}
}

func (e encoder[T]) encode(dst []byte, v T) ([]byte, error) {
	if e.try != nil {
		return e.try.tryEncode(dst, v)
	}
	return e.codec.Encode(dst, v), nil
}
