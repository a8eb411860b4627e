package natsio

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// BenchmarkSinkPublishOutputs measures what the engine's idempotent sink
// path costs per output: a fresh header map per message as the engine
// builds it (the guest's count header and the record key), a message id,
// 100 bytes of data, WireSize as the engine checks it, then Publish, acks
// included, against an embedded server. One op is one output; cpu-ns/op
// is the process's CPU time (user and system, the server's included) per
// output, which the scheduling of a loaded machine disturbs less than the
// elapsed time.
func BenchmarkSinkPublishOutputs(b *testing.B) {
	c := embedded(b)
	if _, err := c.EnsureStream(context.Background(), StreamSpec{Name: "B", Subjects: []string{"b.>"}}); err != nil {
		b.Fatal(err)
	}
	s := c.NewSink(0)
	defer s.Close()
	ctx := context.Background()
	payload := make([]byte, 100)
	ids, keys := make([]string, b.N), make([]string, b.N)
	for i := range ids {
		ids[i], keys[i] = fmt.Sprint("pipe.op.in.", i, ".0"), fmt.Sprintf("key-%07d", i%100000)
	}
	size := 0
	b.ReportAllocs()
	cpu := processCPU(b)
	b.ResetTimer()
	for i := range b.N {
		m := OutMessage{
			Subject:   "b.x",
			MsgID:     ids[i],
			Data:      payload,
			Header:    nats.Header{"count": {"3"}, "Key": {keys[i]}},
			OwnHeader: true,
		}
		size += WireSize(m)
		if err := s.Publish(ctx, m); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(processCPU(b)-cpu)/float64(b.N), "cpu-ns/op")
	if size == 0 {
		b.Fatal("no header bytes measured")
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// processCPU is the process's user and system CPU time so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
