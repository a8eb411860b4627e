// Command bench is the throughput benchmark guest (B1): per record one
// state get and one put of a counter, and one emit of the record's value to
// output "out". It allocates nothing per record, so it measures the
// host/guest boundary and the host's state and emit paths.
package main

import wasmstream "github.com/wasmstream/wasmstream/sdk/go"

// count is the number of records seen per key.
var count = wasmstream.NewValueState("count", wasmstream.Int64Codec)

type bench struct{}

func (bench) Init([]byte) error { return nil }

func (bench) Process(r *wasmstream.Record) error {
	n, _, err := count.Get()
	if err != nil {
		return err
	}
	if err := count.Put(n + 1); err != nil {
		return err
	}
	return wasmstream.Emit("out", r.Key, r.Value)
}

func init() { wasmstream.Register(bench{}) }

func main() {}
