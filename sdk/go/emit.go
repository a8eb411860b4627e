package wasmstream

import (
	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/sdk/go/internal/hostcall"
)

// headerBuf is reused for the encoded headers of every Emit; the SDK runs
// on one goroutine, so sharing it is safe.
var headerBuf []byte

// Emit sends a record to output, the name of an output that the pipeline
// config wires to a sink (for example "out"). The host copies key, value and
// headers, so the caller may reuse them at once.
//
// The emit belongs to the record being processed: if Process later fails
// for that record, the host discards it. Errors wrap ErrUnknownOutput,
// ErrTooLarge, ErrQuotaExceeded or ErrBadArgument.
func Emit(output string, key, value []byte, headers ...Header) error {
	hdr := headerBuf[:0]
	for i := range headers {
		hdr = abi.AppendHeader(hdr, headers[i].Name, headers[i].Value)
	}
	headerBuf = keepBounded(hdr)
	code := abi.Code(hostcall.Emit(stringBytes(output), key, value, hdr))
	if code < 0 {
		return opError("emit", output, codeError(code))
	}
	return nil
}
