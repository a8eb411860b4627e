//go:build wasip1

package wasmstream

import (
	"unsafe"

	"github.com/wasmstream/wasmstream/abi"
)

// The module's exports, as specified by package abi. A pointer is an offset
// in linear memory, which is what a Go pointer is on wasm.

// ready is set by a successful ws_init; ws_process refuses to run before.
var ready bool

//go:wasmexport ws_abi_version
func wsABIVersion() int32 { return abi.Version }

//go:wasmexport ws_alloc
func wsAlloc(size int32) int32 {
	if size < 0 {
		return 0
	}
	return int32(uintptr(unsafe.Pointer(unsafe.SliceData(alloc(int(size))))))
}

//go:wasmexport ws_init
func wsInit(cfgPtr, cfgLen int32) int32 {
	cfg, ok := hostBytes(cfgPtr, cfgLen)
	if !ok {
		return int32(internalError("ws_init: config bytes lie outside the buffer from ws_alloc"))
	}
	code := initOperator(registered, cfg)
	ready = code == abi.OK
	return int32(code)
}

//go:wasmexport ws_process
func wsProcess(batchPtr, batchLen int32) int32 {
	if !ready {
		return int32(internalError("ws_process called before a successful ws_init"))
	}
	batch, ok := hostBytes(batchPtr, batchLen)
	if !ok {
		return int32(internalError("ws_process: batch lies outside the buffer from ws_alloc"))
	}
	return int32(processBatch(registered, batch))
}

// hostBytes returns the n bytes at ptr, which must lie in the buffer that
// ws_alloc handed out; an empty range may have any pointer.
func hostBytes(ptr, n int32) ([]byte, bool) {
	if n == 0 {
		return nil, true
	}
	if allocBuf == nil {
		return nil, false
	}
	base := int64(uintptr(unsafe.Pointer(unsafe.SliceData(allocBuf))))
	return allocated(int(int64(uint32(ptr))-base), int(n))
}

// ws_migrate (ABI 1.2): the new value as len<<32 | ptr, NOT_FOUND to
// delete the entry, or a failure code.
//
//go:wasmexport ws_migrate
func wsMigrate(namePtr, nameLen, fromVersion, valPtr, valLen int32) int64 {
	name, ok1 := hostBytes(namePtr, nameLen)
	val, ok2 := hostBytes(valPtr, valLen)
	if !ok1 || !ok2 {
		return int64(internalError("ws_migrate: name or value lies outside the buffer from ws_alloc"))
	}
	out, code := migrateValue(name, fromVersion, val)
	if code != 0 {
		return code
	}
	ptr := uint32(uintptr(unsafe.Pointer(unsafe.SliceData(out))))
	return int64(len(out))<<32 | int64(ptr)
}
