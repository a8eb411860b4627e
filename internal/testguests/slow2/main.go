// Command slow2 is the two-input benchmark guest of the aligned/unaligned
// checkpoint benchmark: per key it counts the records of each input, and a
// record of input 1 (the slow input) first burns CPU for the number of loop
// iterations its value gives in decimal, so that a backlog on that input
// takes a known time to drain. Every record emits its key's count on its
// input to output "out".
package main

import (
	"errors"
	"strconv"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
)

// counts holds, per key, the number of records seen on input 0 and input 1.
var counts = [2]*wasmstream.ValueState[int64]{
	wasmstream.NewValueState("count0", wasmstream.Int64Codec),
	wasmstream.NewValueState("count1", wasmstream.Int64Codec),
}

// errInput is returned for a record on an input the operator does not have.
var errInput = errors.New("slow2 has inputs 0 (fast) and 1 (slow)")

// sink keeps the burn loop's result observable so the compiler cannot drop it.
var sink uint64

type slow2 struct{}

func (slow2) Init([]byte) error { return nil }

func (slow2) Process(r *wasmstream.Record) error {
	if r.Input < 0 || r.Input > 1 {
		return errInput
	}
	if r.Input == 1 {
		sink += burn(r.Value)
	}
	n, _, err := counts[r.Input].Get()
	if err != nil {
		return err
	}
	n++
	if err := counts[r.Input].Put(n); err != nil {
		return err
	}
	return wasmstream.Emit("out", r.Key, strconv.AppendInt(nil, n, 10))
}

// burn runs the loop a slow record asks for: value is a decimal iteration
// count (anything else burns nothing).
func burn(value []byte) uint64 {
	iterations, err := strconv.ParseUint(string(value), 10, 64)
	if err != nil {
		return 0
	}
	x := uint64(88172645463325252)
	for i := uint64(0); i < iterations; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

func init() { wasmstream.Register(slow2{}) }

func main() {}
