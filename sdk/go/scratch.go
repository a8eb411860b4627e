package wasmstream

// maxRetainedScratch is the largest buffer the SDK keeps for reuse. A
// bigger one (a rare huge value) is dropped after use, so that one outlier
// does not pin memory for the life of the instance.
const maxRetainedScratch = 64 << 10

// keepBounded returns b for reuse, or nil when it is too big to keep.
func keepBounded(b []byte) []byte {
	if cap(b) > maxRetainedScratch {
		return nil
	}
	return b
}

// initialScratch is the first size of the state_get buffer: most state
// values (counters, small structs) fit, so the common Get is one host call.
const initialScratch = 256

// readBuf receives state values from the host. It is shared: values are
// decoded before the next host call, and the SDK runs on one goroutine.
var readBuf = make([]byte, 0, initialScratch)
