package wasmstream

// allocBuf is the buffer handed to the host by ws_alloc for batches and
// config bytes. The package variable keeps it reachable: the host holds
// only its address, which the garbage collector cannot see.
var allocBuf []byte

// minAlloc is the smallest buffer ws_alloc hands out, so that a stream of
// small batches does not reallocate for every few extra bytes.
const minAlloc = 64 << 10

// alloc returns a buffer of at least size bytes, reusing the current one
// when it is big enough. Contents are not preserved: the ABI says a pointer
// from ws_alloc is valid only until the next call. The host already asks
// for 25% headroom, so the SDK adds none beyond minAlloc.
func alloc(size int) []byte {
	if allocBuf == nil || size > cap(allocBuf) {
		allocBuf = nil // drop the old buffer first, so a collection make triggers can free it
		allocBuf = make([]byte, max(size, minAlloc))
	}
	return allocBuf[:cap(allocBuf)]
}

// allocated returns allocBuf[off:off+n] when that range lies inside the
// buffer, which is where the host must have written a batch or a config.
func allocated(off, n int) ([]byte, bool) {
	if off < 0 || n < 0 || off > len(allocBuf) || n > len(allocBuf)-off {
		return nil, false
	}
	return allocBuf[off : off+n : off+n], true
}
