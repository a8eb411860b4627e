//go:build !wasip1

package wasmstream

import "github.com/wasmstream/wasmstream/sdk/go/internal/hostcall"

// Off wasip1 there are no exports: package sdktest drives the same entry
// points through these hooks.
func init() {
	hostcall.InitEntry = func(op any, config []byte) int32 {
		o, _ := op.(Operator)
		return int32(initOperator(o, config))
	}
	hostcall.ProcessEntry = func(op any, batch []byte) int32 {
		return int32(processBatch(op.(Operator), batch))
	}
}
