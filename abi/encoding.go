package abi

import (
	"encoding/binary"
	"errors"
)

// ErrMalformed is returned by every decoder in this package for bytes that do
// not follow the encoding in ABI.md. Decoders never panic and never allocate
// more than the input they were given.
var ErrMalformed = errors.New("abi: malformed buffer")

// Record is one input record as the guest sees it. Slices alias the buffer
// they were decoded from.
type Record struct {
	EventTime int64  // Unix nanoseconds
	Input     uint32 // index of the operator input the record came from
	Key       []byte
	Value     []byte
	Headers   []byte // encoded with AppendHeader; decode with HeaderReader
}

// recordFixedLen is event time + input + three length prefixes.
const recordFixedLen = 8 + 4 + 4 + 4 + 4

// BatchHeaderLen is the size of the count that starts a batch.
const BatchHeaderLen = 4

// EncodedRecordLen returns the bytes AppendRecord will add for r.
func EncodedRecordLen(r *Record) int {
	return recordFixedLen + len(r.Key) + len(r.Value) + len(r.Headers)
}

// AppendBatchHeader appends the record count of a batch.
func AppendBatchHeader(dst []byte, count uint32) []byte {
	return binary.LittleEndian.AppendUint32(dst, count)
}

// AppendRecord appends r in the batch record encoding.
func AppendRecord(dst []byte, r *Record) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, uint64(r.EventTime))
	dst = binary.LittleEndian.AppendUint32(dst, r.Input)
	dst = appendBytes(dst, r.Key)
	dst = appendBytes(dst, r.Value)
	return appendBytes(dst, r.Headers)
}

// PutBatchCount overwrites the count of a batch encoded in buf.
func PutBatchCount(buf []byte, count uint32) {
	binary.LittleEndian.PutUint32(buf, count)
}

func appendBytes(dst, b []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}

// BatchReader decodes a batch without copying.
type BatchReader struct {
	buf       []byte
	remaining uint32
}

// NewBatchReader validates the batch header and returns a reader.
func NewBatchReader(buf []byte) (BatchReader, error) {
	if len(buf) < BatchHeaderLen {
		return BatchReader{}, ErrMalformed
	}
	n := binary.LittleEndian.Uint32(buf)
	// Every record takes at least recordFixedLen bytes: reject impossible counts early.
	if uint64(n)*recordFixedLen > uint64(len(buf)-BatchHeaderLen) {
		return BatchReader{}, ErrMalformed
	}
	return BatchReader{buf: buf[BatchHeaderLen:], remaining: n}, nil
}

// Remaining returns how many records are left.
func (br *BatchReader) Remaining() uint32 { return br.remaining }

// Next decodes the next record into r. It returns false at the end of the
// batch and ErrMalformed for a broken record.
func (br *BatchReader) Next(r *Record) (bool, error) {
	if br.remaining == 0 {
		if len(br.buf) != 0 {
			return false, ErrMalformed
		}
		return false, nil
	}
	b := br.buf
	if len(b) < 12 {
		return false, ErrMalformed
	}
	r.EventTime = int64(binary.LittleEndian.Uint64(b))
	r.Input = binary.LittleEndian.Uint32(b[8:])
	b = b[12:]
	var ok bool
	if r.Key, b, ok = cutBytes(b); !ok {
		return false, ErrMalformed
	}
	if r.Value, b, ok = cutBytes(b); !ok {
		return false, ErrMalformed
	}
	if r.Headers, b, ok = cutBytes(b); !ok {
		return false, ErrMalformed
	}
	br.buf = b
	br.remaining--
	return true, nil
}

func cutBytes(b []byte) (field, rest []byte, ok bool) {
	if len(b) < 4 {
		return nil, nil, false
	}
	n := binary.LittleEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return nil, nil, false
	}
	end := 4 + int(n)
	return b[4:end:end], b[end:], true
}

// AppendHeader appends one name/value pair to an encoded header list. An
// encoded list is the concatenation of its pairs; the empty list is empty.
func AppendHeader(dst []byte, name, value string) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(name)))
	dst = append(dst, name...)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(value)))
	return append(dst, value...)
}

// HeaderReader iterates an encoded header list without copying.
type HeaderReader struct{ buf []byte }

// NewHeaderReader returns a reader over an encoded header list.
func NewHeaderReader(buf []byte) HeaderReader { return HeaderReader{buf: buf} }

// Next returns the next pair, false at the end, or ErrMalformed.
func (hr *HeaderReader) Next() (name, value []byte, more bool, err error) {
	if len(hr.buf) == 0 {
		return nil, nil, false, nil
	}
	var ok bool
	b := hr.buf
	if name, b, ok = cutBytes(b); !ok {
		return nil, nil, false, ErrMalformed
	}
	if value, b, ok = cutBytes(b); !ok {
		return nil, nil, false, ErrMalformed
	}
	hr.buf = b
	return name, value, true, nil
}

// ValidateHeaders checks that buf is a well-formed header list.
func ValidateHeaders(buf []byte) error {
	hr := NewHeaderReader(buf)
	for {
		_, _, more, err := hr.Next()
		if err != nil || !more {
			return err
		}
	}
}
