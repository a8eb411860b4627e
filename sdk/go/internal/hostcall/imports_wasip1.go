//go:build wasip1

package hostcall

import "unsafe"

// The raw imports. Pointers are unsafe.Pointer so that the compiler keeps
// the memory they point to alive for the duration of the call.

//go:wasmimport wasmstream record_next
func recordNext() int32

//go:wasmimport wasmstream state_get
func stateGet(namePtr unsafe.Pointer, nameLen int32, outPtr unsafe.Pointer, outCap int32) int32

//go:wasmimport wasmstream state_put
func statePut(namePtr unsafe.Pointer, nameLen int32, valPtr unsafe.Pointer, valLen int32) int32

//go:wasmimport wasmstream state_delete
func stateDelete(namePtr unsafe.Pointer, nameLen int32) int32

//go:wasmimport wasmstream emit
func emit(outPtr unsafe.Pointer, outLen int32, keyPtr unsafe.Pointer, keyLen int32,
	valPtr unsafe.Pointer, valLen int32, hdrPtr unsafe.Pointer, hdrLen int32) int32

//go:wasmimport wasmstream log
func hostLog(level int32, msgPtr unsafe.Pointer, msgLen int32)

//go:wasmimport wasmstream event_time
func eventTime() int64

//go:wasmimport wasmstream processing_time
func processingTime() int64

//go:wasmimport wasmstream state_declare
func stateDeclare(namePtr unsafe.Pointer, nameLen int32, version int32, ttlMillis int64, flags int32) int32

// ptr returns the address of b's first byte, or nil for an empty slice
// (the host accepts any pointer with length 0).
func ptr(b []byte) unsafe.Pointer {
	return unsafe.Pointer(unsafe.SliceData(b))
}

// RecordNext calls the host's record_next.
func RecordNext() int32 { return recordNext() }

// StateGet calls the host's state_get with out's capacity as out_cap, so a
// caller can pass buf[:0] and re-slice to the returned length.
func StateGet(name, out []byte) int32 {
	out = out[:cap(out)]
	return stateGet(ptr(name), int32(len(name)), ptr(out), int32(len(out)))
}

// StatePut calls the host's state_put.
func StatePut(name, value []byte) int32 {
	return statePut(ptr(name), int32(len(name)), ptr(value), int32(len(value)))
}

// StateDelete calls the host's state_delete.
func StateDelete(name []byte) int32 {
	return stateDelete(ptr(name), int32(len(name)))
}

// Emit calls the host's emit.
func Emit(output, key, value, headers []byte) int32 {
	return emit(ptr(output), int32(len(output)), ptr(key), int32(len(key)),
		ptr(value), int32(len(value)), ptr(headers), int32(len(headers)))
}

// Log calls the host's log.
func Log(level int32, msg []byte) { hostLog(level, ptr(msg), int32(len(msg))) }

// EventTime calls the host's event_time.
func EventTime() int64 { return eventTime() }

// ProcessingTime calls the host's processing_time.
func ProcessingTime() int64 { return processingTime() }

// StateDeclare calls the host's state_declare (ABI 1.1).
func StateDeclare(name []byte, version int32, ttlMillis int64, flags int32) int32 {
	return stateDeclare(ptr(name), int32(len(name)), version, ttlMillis, flags)
}
