//go:build wasip1

package wasmstream

// collectEnabled turns the SDK's collections on in guests, the only place
// where the runtime cannot collect by itself.
const collectEnabled = true
