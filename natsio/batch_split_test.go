package natsio

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
)

func TestSplitBatches(t *testing.T) {
	tests := []struct {
		name   string
		prefix string
		n      int
		size   int
		want   []BatchSpan
		err    error
	}{
		{"none", "e1", 0, 3, []BatchSpan{}, nil},
		{"one partial", "e1", 2, 3, []BatchSpan{{"e1-0", 0, 2}}, nil},
		{"exact", "e1", 6, 3, []BatchSpan{{"e1-0", 0, 3}, {"e1-1", 3, 6}}, nil},
		{"remainder", "e1", 7, 3, []BatchSpan{{"e1-0", 0, 3}, {"e1-1", 3, 6}, {"e1-2", 6, 7}}, nil},
		{"default size", "p", 2500, 0, []BatchSpan{{"p-0", 0, 1000}, {"p-1", 1000, 2000}, {"p-2", 2000, 2500}}, nil},
		{"size over the limit", "p", 10, MaxAtomicBatch + 1, nil, ErrInvalidBatch},
		{"negative size", "p", 10, -1, nil, ErrInvalidBatch},
		{"negative count", "p", -1, 3, nil, ErrInvalidBatch},
		{"prefix too long for the last id", strings.Repeat("x", MaxBatchIDLen-2), 11, 1, nil, ErrInvalidBatch},
		{"prefix just fits", strings.Repeat("x", MaxBatchIDLen-3), 10, 1, nil, nil},
		{"empty prefix", "", 1, 1, []BatchSpan{{"-0", 0, 1}}, nil},
		{"prefix with space", "a b", 1, 1, nil, ErrInvalidBatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SplitBatches(tt.prefix, tt.n, tt.size)
			if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if tt.want != nil && !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("SplitBatches = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestCommitBatchesResumesAfterInterruption commits the first k batches of
// a split and half of batch k+1, as a sink that crashed would have, then
// runs the whole commit again: every message must be stored exactly once.
func TestCommitBatchesResumesAfterInterruption(t *testing.T) {
	c := embedded(t)
	ensureAtomicStream(t, c, "OUT", "out.>")
	msgs := outMsgs("out.x", "e", 2500)
	spans, err := SplitBatches("epoch-7", len(msgs), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.PublishAtomicBatch(testCtx(t), spans[0].ID, msgs[spans[0].Start:spans[0].End]); err != nil {
		t.Fatal(err)
	}
	for i := spans[1].Start; i < spans[1].Start+10; i++ { // batch 2 half-sent, never committed
		if err := c.NC.PublishMsg(batchMsg(spans[1].ID, i-spans[1].Start, msgs[i], false)); err != nil {
			t.Fatal(err)
		}
	}

	results, err := c.CommitBatches(testCtx(t), "epoch-7", msgs, 0)
	if err != nil {
		t.Fatal(err)
	}
	statuses := []BatchStatus{results[0].Status, results[1].Status, results[2].Status}
	if want := []BatchStatus{BatchAlreadyCommitted, BatchCommitted, BatchCommitted}; len(results) != 3 || !reflect.DeepEqual(statuses, want) {
		t.Fatalf("statuses = %v, want %v", statuses, want)
	}
	if results[1].FirstSeq != 1001 || results[2].LastSeq != 2500 {
		t.Fatalf("sequences: %+v", results)
	}
	// A third run after completion stores nothing.
	again, err := c.CommitBatches(testCtx(t), "epoch-7", msgs, 0)
	if err != nil || len(again) != 3 {
		t.Fatalf("third run = %v, %v", again, err)
	}
	for _, r := range again {
		if r.Status != BatchAlreadyCommitted {
			t.Fatalf("third run result %+v", r)
		}
	}
	assertEachIDOnce(t, c, "OUT", msgs)
}

func assertEachIDOnce(t *testing.T, c *Conn, stream string, msgs []OutMessage) {
	t.Helper()
	if n := streamMsgs(t, c, stream); n != uint64(len(msgs)) {
		t.Fatalf("stream holds %d messages, want %d", n, len(msgs))
	}
	src, err := c.OpenSource(testCtx(t), SourceSpec{Stream: stream})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	seen := map[string]int{}
	for _, m := range fetchN(t, src, len(msgs)) {
		seen[m.Header.Get(jetstream.MsgIDHeader)]++
	}
	for _, m := range msgs {
		if seen[m.MsgID] != 1 {
			t.Fatalf("message id %s stored %d times", m.MsgID, seen[m.MsgID])
		}
	}
}

func TestCommitBatchesRefusesIDRepeatedAcrossBatches(t *testing.T) {
	c := embedded(t)
	ensureAtomicStream(t, c, "OUT", "out.>")
	msgs := outMsgs("out.x", "e", 5)
	msgs[4].MsgID = msgs[0].MsgID // would make batch 3 look committed
	if _, err := c.CommitBatches(testCtx(t), "p", msgs, 2); !errors.Is(err, ErrInvalidBatch) {
		t.Fatalf("err = %v, want ErrInvalidBatch", err)
	}
	if n := streamMsgs(t, c, "OUT"); n != 0 {
		t.Fatalf("stream holds %d messages", n)
	}
}

func TestCommitBatchesStopsAtFirstFailure(t *testing.T) {
	c := embedded(t)
	ensureAtomicStream(t, c, "OUT", "out.>")
	msgs := outMsgs("out.x", "e", 5)
	msgs[3].Subject = "nowhere.x" // batch 2 (messages 2, 3) has no stream for its commit
	results, err := c.CommitBatches(testCtx(t), "p", msgs, 2)
	if !errors.Is(err, ErrNoStream) || !strings.Contains(err.Error(), "p-1") || len(results) != 1 {
		t.Fatalf("CommitBatches = %v, %v; want one result and ErrNoStream naming p-1", results, err)
	}
	if n := streamMsgs(t, c, "OUT"); n != 2 {
		t.Fatalf("stream holds %d messages, want the first batch only", n)
	}
}
