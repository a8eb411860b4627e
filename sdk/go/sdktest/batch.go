//go:build !wasip1

package sdktest

import (
	"time"

	"github.com/wasmstream/wasmstream/abi"
)

// encodeBatch encodes records as the host does for ws_process.
func encodeBatch(records []Record) []byte {
	buf := abi.AppendBatchHeader(nil, uint32(len(records)))
	for i := range records {
		r := &records[i]
		var hdr []byte
		for _, h := range r.Headers {
			hdr = abi.AppendHeader(hdr, h.Name, h.Value)
		}
		buf = abi.AppendRecord(buf, &abi.Record{
			EventTime: unixNano(r.EventTime),
			Input:     uint32(r.Input),
			Key:       r.Key,
			Value:     r.Value,
			Headers:   hdr,
		})
	}
	return buf
}

// unixNano is t in Unix nanoseconds, with the zero time as 0 rather than
// the out-of-range value time.Time.UnixNano gives it.
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}
