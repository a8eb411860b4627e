package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/cockroachdb/pebble/v2"
)

// The outbox holds the outputs of transactional sinks between the
// checkpoint barrier that stages them and the commit that publishes them
// (FORMAT.md §6). Its keys sort by epoch (the checkpoint id that stages
// them), then operator, task and sequence, so one epoch's outputs are read
// in the order they were emitted per task and a commit deletes a key range.

// outboxPrefix is the first byte of every outbox key.
const outboxPrefix = 'o'

// outboxValueVersion is the first byte of every outbox value.
const outboxValueVersion = 1

// ErrCorruptOutbox is wrapped by every outbox key or value that does not decode.
var ErrCorruptOutbox = errors.New("state: corrupt outbox entry")

// OutboxMessage is one staged output.
type OutboxMessage struct {
	Subject string
	MsgID   string
	Headers []byte // abi header list (abi.AppendHeader); may be empty
	Data    []byte
}

// OutboxKey addresses one staged output.
type OutboxKey struct {
	Epoch    uint64
	Operator string
	Task     uint16
	Seq      uint32
}

// AppendOutboxKey appends k's Pebble key:
// 'o' u64 epoch, u8 n, operator (n bytes), u16 task, u32 seq.
func AppendOutboxKey(dst []byte, k OutboxKey) []byte {
	dst = append(dst, outboxPrefix)
	dst = binary.BigEndian.AppendUint64(dst, k.Epoch)
	dst = append(dst, byte(len(k.Operator)))
	dst = append(dst, k.Operator...)
	dst = binary.BigEndian.AppendUint16(dst, k.Task)
	return binary.BigEndian.AppendUint32(dst, k.Seq)
}

// DecodeOutboxKey decodes an outbox key.
func DecodeOutboxKey(b []byte) (OutboxKey, error) {
	if len(b) < 1+8+1 || b[0] != outboxPrefix {
		return OutboxKey{}, fmt.Errorf("%w: key %x is not an outbox key", ErrCorruptOutbox, b)
	}
	n := int(b[9])
	if n == 0 || len(b) != 10+n+2+4 {
		return OutboxKey{}, fmt.Errorf("%w: key %x has a bad operator length", ErrCorruptOutbox, b)
	}
	return OutboxKey{
		Epoch:    binary.BigEndian.Uint64(b[1:9]),
		Operator: string(b[10 : 10+n]),
		Task:     binary.BigEndian.Uint16(b[10+n:]),
		Seq:      binary.BigEndian.Uint32(b[12+n:]),
	}, nil
}

// AppendOutboxValue appends m's stored form: u8 version 1, then subject,
// msg id, headers and data, each as u32 length + bytes.
func AppendOutboxValue(dst []byte, m OutboxMessage) []byte {
	dst = append(dst, outboxValueVersion)
	for _, part := range [][]byte{[]byte(m.Subject), []byte(m.MsgID), m.Headers, m.Data} {
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(part)))
		dst = append(dst, part...)
	}
	return dst
}

// DecodeOutboxValue decodes a stored outbox value. Data and Headers alias b.
func DecodeOutboxValue(b []byte) (OutboxMessage, error) {
	if len(b) == 0 || b[0] != outboxValueVersion {
		return OutboxMessage{}, fmt.Errorf("%w: value version %v, want %d", ErrCorruptOutbox, b[:min(1, len(b))], outboxValueVersion)
	}
	rest := b[1:]
	var parts [4][]byte
	for i := range parts {
		if len(rest) < 4 {
			return OutboxMessage{}, fmt.Errorf("%w: value truncated in part %d", ErrCorruptOutbox, i)
		}
		n := binary.BigEndian.Uint32(rest)
		if uint64(n) > uint64(len(rest)-4) {
			return OutboxMessage{}, fmt.Errorf("%w: part %d of %d bytes overruns the value", ErrCorruptOutbox, i, n)
		}
		parts[i], rest = rest[4:4+n], rest[4+n:]
	}
	if len(rest) != 0 {
		return OutboxMessage{}, fmt.Errorf("%w: %d trailing bytes", ErrCorruptOutbox, len(rest))
	}
	return OutboxMessage{Subject: string(parts[0]), MsgID: string(parts[1]), Headers: parts[2], Data: parts[3]}, nil
}

// PutOutbox stages m under k in b (committed with the checkpoint flush).
func PutOutbox(b *pebble.Batch, k OutboxKey, m OutboxMessage) error {
	if k.Operator == "" || len(k.Operator) > 255 {
		return fmt.Errorf("%w: outbox operator %q must have 1..255 bytes", ErrInvalidOptions, k.Operator)
	}
	return b.Set(AppendOutboxKey(nil, k), AppendOutboxValue(nil, m), nil)
}

// outboxBound is the first key after every epoch up to maxEpoch.
func outboxBound(maxEpoch uint64) []byte {
	if maxEpoch == math.MaxUint64 {
		return []byte{outboxPrefix + 1}
	}
	return binary.BigEndian.AppendUint64([]byte{outboxPrefix}, maxEpoch+1)
}

// ScanOutbox calls fn for every staged output of an epoch ≤ maxEpoch, in
// key order. The message is valid only during the call.
func (s *Store) ScanOutbox(maxEpoch uint64, fn func(OutboxKey, OutboxMessage) error) error {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte{outboxPrefix}, UpperBound: outboxBound(maxEpoch)})
	if err != nil {
		return err
	}
	for valid := it.First(); valid; valid = it.Next() {
		k, err := DecodeOutboxKey(it.Key())
		if err != nil {
			return errors.Join(err, it.Close())
		}
		raw, err := it.ValueAndErr()
		if err != nil {
			return errors.Join(err, it.Close())
		}
		m, err := DecodeOutboxValue(raw)
		if err != nil {
			return errors.Join(fmt.Errorf("outbox epoch %d operator %q task %d seq %d: %w", k.Epoch, k.Operator, k.Task, k.Seq, err), it.Close())
		}
		if err := fn(k, m); err != nil {
			return errors.Join(err, it.Close())
		}
	}
	return errors.Join(it.Error(), it.Close())
}

// DeleteOutbox removes every staged output of an epoch ≤ maxEpoch, synced:
// called once they are published.
func (s *Store) DeleteOutbox(maxEpoch uint64) error {
	return s.db.DeleteRange([]byte{outboxPrefix}, outboxBound(maxEpoch), pebble.Sync)
}
