package natsio

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/testutil/natsproc"
)

// Issue 18: sources stalled for 10 s (two missed idle heartbeats) with
// records waiting, in 33 of 126 end-to-end runs. The loops below read a
// large backlog the way the engine does (source and sink on one Conn, the
// sink publishing every record while the source reads, a flush each
// second) from a server in its own process, where the stall was most
// frequent: before the fix, 3 of 15 such loops over 300,000 records
// stalled. nats.go recovers from the stall by replacing the ordered
// consumer, so a loop must see one consumer only, and every record once,
// in order.
const (
	stallLoops   = 10
	stallRecords = 300_000
)

func TestSourceLoopsReadWholeBacklog(t *testing.T) {
	if testing.Short() {
		t.Skip("a load test of about a minute; it runs without -short")
	}
	c := external(t, natsproc.Start(t))
	ensureStream(t, c, "STALLIN", "stallin")
	ensureStream(t, c, "STALLOUT", "stallout")
	publishBacklog(t, c, "stallin", stallRecords)
	for loop := range stallLoops {
		got, consumers, wakes := readLikeTheEngine(t, c, stallRecords)
		if wakes > 0 {
			t.Logf("loop %d: the source woke its consumer %d times (source_wake.go)", loop, wakes)
		}
		if got != stallRecords || consumers != 1 {
			t.Errorf("loop %d: %d of %d records from %d consumers; want all from 1 (nats.go replaces the consumer after two missed "+
				"heartbeats, i.e. after the source stalled for 10 s)", loop, got, stallRecords, consumers)
		}
	}
}

// publishBacklog stores n 100-byte records on subject.
func publishBacklog(t *testing.T, c *Conn, subject string, n int) {
	t.Helper()
	sink := c.NewSink(8192)
	defer sink.Close()
	ctx := testCtx(t)
	value := make([]byte, 100)
	for range n {
		if err := sink.Publish(ctx, OutMessage{Subject: subject, Data: value}); err != nil {
			t.Fatal(err)
		}
	}
	if err := sink.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// readLikeTheEngine reads the backlog from the start as the engine's
// source, task and sink do, and returns how many records arrived, in
// stream order, from how many consumers, and how often the source had to
// wake its consumer.
func readLikeTheEngine(t *testing.T, c *Conn, n int) (int, uint32, uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a bound, not a figure
	defer cancel()
	src, err := c.OpenSource(ctx, SourceSpec{Stream: "STALLIN"})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	sink := c.NewSink(4096)
	defer sink.Close()
	task := make(chan []Message, 4)
	published := make(chan error, 1)
	go func() { published <- republish(ctx, sink, task) }()
	got := 0
	for got < n && ctx.Err() == nil {
		batch, err := src.Fetch(ctx, 1024, 20*time.Millisecond)
		if err != nil {
			break
		}
		for _, m := range batch {
			if got++; m.Sequence != uint64(got) {
				t.Fatalf("record %d has sequence %d", got, m.Sequence)
			}
		}
		if len(batch) > 0 {
			task <- batch
		}
	}
	close(task)
	if err := <-published; err != nil {
		t.Fatalf("publishing: %v", err)
	}
	return got, src.taken.consumers.Load(), src.Wakes()
}

// republish is the task: every record out again with an id, as the
// idempotent sink sends it, and a flush every second, as checkpoints do.
func republish(ctx context.Context, sink *Sink, task <-chan []Message) error {
	flush := time.NewTicker(time.Second)
	defer flush.Stop()
	for {
		select {
		case batch, ok := <-task:
			if !ok {
				return sink.Flush(ctx)
			}
			for _, m := range batch {
				id := "stall." + strconv.FormatUint(m.Sequence, 10)
				if err := sink.Publish(ctx, OutMessage{Subject: "stallout", MsgID: id, Data: m.Data}); err != nil {
					return err
				}
			}
		case <-flush.C:
			if err := sink.Flush(ctx); err != nil {
				return err
			}
		}
	}
}
