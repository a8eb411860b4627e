package natsio

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkTransactionalSink compares, in one run, committing 100-byte
// messages as atomic batches of MaxAtomicBatch with publishing them
// asynchronously with message ids (the idempotent sink). Each sub-benchmark
// has its own embedded server; one op is one message, acks included.
func BenchmarkTransactionalSink(b *testing.B) {
	b.Run("atomic-batch-1000", benchAtomicBatches)
	b.Run("async-msgid", benchAsyncMsgID)
}

func benchMsgs(n int) []OutMessage {
	payload := make([]byte, 100)
	msgs := make([]OutMessage, n)
	for i := range msgs {
		msgs[i] = OutMessage{Subject: "b.x", MsgID: fmt.Sprint("id-", i), Data: payload}
	}
	return msgs
}

func benchAtomicBatches(b *testing.B) {
	c := embedded(b)
	if _, err := c.EnsureAtomicStream(context.Background(), StreamSpec{Name: "B", Subjects: []string{"b.>"}}); err != nil {
		b.Fatal(err)
	}
	msgs := benchMsgs(b.N)
	ctx := context.Background()
	b.SetBytes(100)
	b.ResetTimer()
	results, err := c.CommitBatches(ctx, "bench", msgs, MaxAtomicBatch)
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	for _, r := range results {
		if r.Status != BatchCommitted {
			b.Fatalf("batch %s: %s", r.BatchID, r.Status)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

func benchAsyncMsgID(b *testing.B) {
	c := embedded(b)
	if _, err := c.EnsureStream(context.Background(), StreamSpec{Name: "B", Subjects: []string{"b.>"}}); err != nil {
		b.Fatal(err)
	}
	msgs := benchMsgs(b.N)
	s := c.NewSink(0)
	defer s.Close()
	ctx := context.Background()
	b.SetBytes(100)
	b.ResetTimer()
	for _, m := range msgs {
		if err := s.Publish(ctx, m); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkAtomicBatchesInFlight commits 100-byte messages as atomic batches
// of MaxAtomicBatch with 1, 4 and 16 commits in flight
// (PublishAtomicBatches), each first message answered ("again") or not.
// One op is one message, acks included.
func BenchmarkAtomicBatchesInFlight(b *testing.B) {
	for _, f := range []BatchFlight{{Window: 1}, {Window: 4}, {Window: 16}, {Window: 4, Again: true}} {
		name := fmt.Sprint("window-", f.Window)
		if f.Again {
			name += "-again"
		}
		b.Run(name, func(b *testing.B) {
			c := embedded(b)
			if _, err := c.EnsureAtomicStream(context.Background(), StreamSpec{Name: "B", Subjects: []string{"b.>"}}); err != nil {
				b.Fatal(err)
			}
			msgs := benchMsgs(b.N)
			spans, err := SplitBatches("bench", len(msgs), MaxAtomicBatch)
			if err != nil {
				b.Fatal(err)
			}
			batches := make([]AtomicBatch, len(spans))
			for i, sp := range spans {
				batches[i] = AtomicBatch{ID: sp.ID, Msgs: msgs[sp.Start:sp.End]}
			}
			b.SetBytes(100)
			b.ResetTimer()
			err = c.PublishAtomicBatches(context.Background(), batches, f, func(i int, r BatchResult) error {
				if r.Status != BatchCommitted {
					return fmt.Errorf("batch %s: %s", r.BatchID, r.Status)
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}
