//go:build wasip1

// Command guest is the B1 keyed counter as an Extism plug-in, built with
// the standard Go toolchain and github.com/extism/go-pdk:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o counter.wasm ./guest
//
// Its export "count" handles one record per call, as Extism plug-ins do:
// the input is the record (a 4-byte little-endian key length, the key, the
// value); it reads the key's counter through the host function count_get,
// adds one, writes it back through count_put, and outputs the record
// unchanged (the emit). State goes through host functions in the style of
// Extism's own key-value example: the key and the value travel as Extism
// memory blocks, the counter is 8 bytes little-endian like the wasmstream
// guest's Int64Codec.
package main

import (
	"encoding/binary"

	"github.com/extism/go-pdk"
)

// countGet returns the offset of a memory block holding the key's counter,
// or 0 if the key has none.
//
//go:wasmimport extism:host/user count_get
func countGet(key uint64) uint64

// countPut stores the block at value as the key's counter.
//
//go:wasmimport extism:host/user count_put
func countPut(key, value uint64)

//go:wasmexport count
func count() int32 {
	in := pdk.Input()
	if len(in) < 4 {
		pdk.SetErrorString("record shorter than its key length")
		return 1
	}
	klen := binary.LittleEndian.Uint32(in)
	if uint64(len(in)-4) < uint64(klen) {
		pdk.SetErrorString("key length past the end of the record")
		return 1
	}
	key := pdk.AllocateBytes(in[4 : 4+klen])
	defer key.Free()
	var n uint64
	if off := countGet(key.Offset()); off != 0 {
		old := pdk.FindMemory(off)
		if v := old.ReadBytes(); len(v) == 8 {
			n = binary.LittleEndian.Uint64(v)
		}
		old.Free()
	}
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], n+1)
	value := pdk.AllocateBytes(buf[:])
	defer value.Free()
	countPut(key.Offset(), value.Offset())
	pdk.Output(in)
	return 0
}

func main() {}
