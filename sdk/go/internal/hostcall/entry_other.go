//go:build !wasip1

package hostcall

// Entry points of the SDK that a wasm host reaches through the ws_init and
// ws_process exports. Package wasmstream registers them at init so that
// package sdktest can drive an operator natively through the same code. op
// is a wasmstream.Operator; it is typed any because this package sits below
// wasmstream.
var (
	InitEntry    func(op any, config []byte) int32
	ProcessEntry func(op any, batch []byte) int32
)
