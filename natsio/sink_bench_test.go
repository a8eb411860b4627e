package natsio

import (
	"context"
	"fmt"
	"testing"

	"github.com/nats-io/nats.go"
)

// BenchmarkSinkPublishOutputs measures what the engine's idempotent sink
// path costs per output: a fresh header map per message as the engine
// builds it (the guest's count header and the record key), a message id,
// 100 bytes of data, WireSize as the engine checks it, then Publish, acks
// included, against an embedded server. One op is one output.
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
	if size == 0 {
		b.Fatal("no header bytes measured")
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}
