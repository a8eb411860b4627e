package host

import (
	"fmt"
	"testing"
)

// BenchmarkEncodeBatch measures the host's per-record cost of encoding a
// B1-shaped batch (512 records, 10-byte keys, 100-byte values) for the
// guest: the first step of every ws_process call.
func BenchmarkEncodeBatch(b *testing.B) {
	recs := make([]Record, 512)
	for i := range recs {
		recs[i] = Record{Key: []byte(fmt.Sprintf("key-%06d", i)), Value: make([]byte, 100), EventTime: int64(i)}
	}
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = encodeBatch(buf[:0], recs)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(recs)), "ns/record")
}
