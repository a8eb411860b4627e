//go:build !wasip1

package wasmstream

// collectEnabled is false off wasip1, where the runtime collects in the
// background as usual.
const collectEnabled = false
