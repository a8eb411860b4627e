// Package wasmstream is the Go SDK for wasmstream operators: stateful stream
// operators that run as WebAssembly modules inside the wasmstream host.
//
// An operator is a Go main package that registers one Operator:
//
//	package main
//
//	import wasmstream "github.com/wasmstream/wasmstream/sdk/go"
//
//	var count = wasmstream.NewValueState("count", wasmstream.Int64Codec)
//
//	type counter struct{}
//
//	func (counter) Init(config []byte) error { return nil }
//
//	func (counter) Process(r *wasmstream.Record) error {
//		n, _, err := count.Get()
//		if err != nil {
//			return err
//		}
//		if err := count.Put(n + 1); err != nil {
//			return err
//		}
//		return wasmstream.Emit("out", r.Key, r.Value)
//	}
//
//	func init() { wasmstream.Register(counter{}) }
//
//	func main() {}
//
// Build it as a WASI reactor (Go 1.24 or newer):
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o op.wasm .
//
// The package provides the module's exports (ws_abi_version, ws_alloc,
// ws_init, ws_process), so the operator writes none.
//
// # State
//
// State lives in the host, not in the guest: the host checkpoints it and
// scopes every access to the key of the record being processed. ValueState
// holds one value per key, MapState a map per key. Values cross the
// boundary as bytes through a Codec.
//
// # Lifetimes
//
// The *Record passed to Process and every slice in it alias the batch
// buffer: they are valid only until Process returns. Copy what you keep.
//
// # Memory
//
// A Go wasip1 module called through exports never runs its garbage
// collector in the background, so the SDK collects between records when
// the heap has grown enough since the last collection (see SetGCPolicy).
// Linear memory therefore stays bounded by roughly twice the live heap plus
// the largest batch.
//
// # Testing
//
// Off wasip1 the host functions are served by an in-memory fake: package
// sdktest runs an Operator natively, records its emits and logs and lets a
// test inspect and seed its state.
package wasmstream
