// Command behave is a guest for the host's fault and hostile-module tests.
// The value of each record chooses what it does:
//
//	ok        put state "count" (+1) and emit the value to "out"
//	trap      panic (a wasm trap; the instance is corrupt afterwards)
//	loop      loop forever (the host's deadline must stop it)
//	grow      allocate and keep memory until the page limit is hit
//	error     return an error from Process (the record is dead-lettered)
//	bigemit   emit a 2 MiB + 1 byte value to "out"; the emit's error is returned
//	manyemit  emit 10000 records to "out"; the first emit error is returned
//	          (with the host's default quota of 64 emits per record, the
//	          65th emit fails with QUOTA_EXCEEDED and the record is dead-lettered)
//	log       log one line at each level, trace to error
//
// Any other value is an error. Config "fail-init" makes Init fail.
package main

import wasmstream "github.com/wasmstream/wasmstream/sdk/go"

func init() { wasmstream.Register(&behave{}) }

func main() {}
