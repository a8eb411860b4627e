package exchange

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Headers of exchange messages (FORMAT.md §3, §5).
const (
	// HeaderMarker marks a barrier marker; its value is the marker format version, "1".
	HeaderMarker = "Wasmstream-Exchange-Marker"
	// HeaderKey carries the key the producer emitted a record with, when it is not empty; the
	// same header an operator's output carries to a sink.
	HeaderKey = "Wasmstream-Key"
	// HeaderEventTime carries the event time of the producer's input record, in Unix
	// nanoseconds, decimal: the consumer's event time, whatever the exchange message's own
	// timestamp.
	HeaderEventTime = "Wasmstream-Event-Time"
	// HeaderSubject carries the subject of a routed source's record (FORMAT.md §2.1), which the
	// consumer restores: its key rule and its guest see the record as the source stored it.
	HeaderSubject = "Wasmstream-Exchange-Subject"
	// MarkerVersion is the marker format this package writes, and the value of HeaderMarker.
	MarkerVersion = 1
)

// MarkerSize is the length of an encoded marker.
const MarkerSize = 36

// markerMagic starts a marker's data.
const markerMagic = "WSXM"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Errors of DecodeMarker; errors.Is tells them apart.
var (
	// ErrNotMarker: the bytes are not a marker at all (too short, too long, no magic).
	ErrNotMarker = errors.New("exchange: not a barrier marker")
	// ErrMarkerVersion: a marker of a format version this package does not read.
	ErrMarkerVersion = errors.New("exchange: unknown barrier marker version")
	// ErrCorruptMarker: a marker whose checksum or fields are wrong.
	ErrCorruptMarker = errors.New("exchange: corrupt barrier marker")
)

// Marker is the in-band barrier a producer task publishes on every key-group subject of each
// edge it writes, after the last record it published before checkpoint Checkpoint's barrier.
// A consumer task has seen checkpoint N's barrier on an edge once it holds the markers (N,
// Generation) of all Tasks producer tasks.
type Marker struct {
	// Checkpoint is the checkpoint id: at least 1.
	Checkpoint uint64
	// Generation is the coordinator incarnation that triggered the checkpoint. A run that
	// crashed may have left markers of an id the next run triggers again; the consumer ignores
	// markers of another generation than the trigger's (FORMAT.md §5.2).
	Generation uint64
	// Task is the producer task's index, below Tasks.
	Task uint32
	// Tasks is the producer's parallelism for this checkpoint: how many markers of (Checkpoint,
	// Generation) a consumer waits for on this edge. At least 1.
	Tasks uint32
}

// String describes the marker for logs: "marker 42/g7 from task 1 of 4".
func (m Marker) String() string {
	return fmt.Sprintf("marker %d/g%d from task %d of %d", m.Checkpoint, m.Generation, m.Task, m.Tasks)
}

// Validate reports a marker that must not be published.
func (m Marker) Validate() error {
	switch {
	case m.Checkpoint == 0:
		return fmt.Errorf("%w: checkpoint id 0", ErrCorruptMarker)
	case m.Tasks == 0:
		return fmt.Errorf("%w: 0 producer tasks", ErrCorruptMarker)
	case m.Task >= m.Tasks:
		return fmt.Errorf("%w: task %d of %d", ErrCorruptMarker, m.Task, m.Tasks)
	}
	return nil
}

// EncodeMarker returns the data of the marker message (FORMAT.md §5.1):
//
//	0       4    5     6      8            16           24     28      32      36
//	| WSXM  | v1 | 0   | 0 0  | checkpoint | generation | task | tasks | crc32c |
//	magic   version flags rsvd  u64 BE       u64 BE       u32 BE u32 BE  of bytes 0..32
//
// It panics on a marker that fails Validate: publishing one is a bug of the caller.
func EncodeMarker(m Marker) []byte {
	if err := m.Validate(); err != nil {
		panic(err)
	}
	b := make([]byte, MarkerSize)
	copy(b, markerMagic)
	b[4] = MarkerVersion
	binary.BigEndian.PutUint64(b[8:], m.Checkpoint)
	binary.BigEndian.PutUint64(b[16:], m.Generation)
	binary.BigEndian.PutUint32(b[24:], m.Task)
	binary.BigEndian.PutUint32(b[28:], m.Tasks)
	binary.BigEndian.PutUint32(b[32:], crc32.Checksum(b[:32], castagnoli))
	return b
}

// DecodeMarker reads the data of a message whose HeaderMarker is set. The bytes come from the
// network: every field is checked, and a marker DecodeMarker accepts encodes back to the same
// bytes.
func DecodeMarker(b []byte) (Marker, error) {
	if len(b) < 5 || string(b[:4]) != markerMagic {
		return Marker{}, fmt.Errorf("%w: %d bytes without the %q magic", ErrNotMarker, len(b), markerMagic)
	}
	if b[4] != MarkerVersion {
		return Marker{}, fmt.Errorf("%w: version %d; this build reads version %d, so a newer producer wrote it: upgrade the consumer's workers", ErrMarkerVersion, b[4], MarkerVersion)
	}
	if len(b) != MarkerSize {
		return Marker{}, fmt.Errorf("%w: %d bytes, want %d", ErrCorruptMarker, len(b), MarkerSize)
	}
	if sum := crc32.Checksum(b[:32], castagnoli); sum != binary.BigEndian.Uint32(b[32:]) {
		return Marker{}, fmt.Errorf("%w: checksum %08x, computed %08x", ErrCorruptMarker, binary.BigEndian.Uint32(b[32:]), sum)
	}
	if b[5] != 0 || b[6] != 0 || b[7] != 0 {
		return Marker{}, fmt.Errorf("%w: reserved bytes %x are not zero", ErrCorruptMarker, b[5:8])
	}
	m := Marker{
		Checkpoint: binary.BigEndian.Uint64(b[8:]),
		Generation: binary.BigEndian.Uint64(b[16:]),
		Task:       binary.BigEndian.Uint32(b[24:]),
		Tasks:      binary.BigEndian.Uint32(b[28:]),
	}
	if err := m.Validate(); err != nil {
		return Marker{}, err
	}
	return m, nil
}

// ReservedHeader reports whether a header name is the exchange's own (HeaderMarker, and any
// other Wasmstream-Exchange-* name, compared without case), which a producer must never copy
// from a guest's output: a guest could otherwise forge a barrier.
func ReservedHeader(name string) bool {
	const prefix = "wasmstream-exchange-"
	if len(name) < len(prefix) {
		return false
	}
	for i := range len(prefix) {
		c := name[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}
