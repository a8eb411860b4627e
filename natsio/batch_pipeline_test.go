package natsio

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// splitInto cuts msgs into batches of size named prefix-0, prefix-1, ...
func splitInto(t *testing.T, prefix string, msgs []OutMessage, size int) []AtomicBatch {
	t.Helper()
	spans, err := SplitBatches(prefix, len(msgs), size)
	if err != nil {
		t.Fatal(err)
	}
	var out []AtomicBatch
	for _, sp := range spans {
		out = append(out, AtomicBatch{ID: sp.ID, Msgs: msgs[sp.Start:sp.End]})
	}
	return out
}

// TestPublishAtomicBatchesStoresInOrder: with several commits in flight
// the batches are stored whole, contiguously and in their order, and done
// sees each result once, in order.
func TestPublishAtomicBatchesStoresInOrder(t *testing.T) {
	for _, tc := range []struct {
		window int
		again  bool
	}{{1, false}, {3, false}, {8, false}, {3, true}} {
		window, again := tc.window, tc.again
		t.Run(fmt.Sprintf("window %d again %v", window, again), func(t *testing.T) {
			c := embedded(t)
			ensureAtomicStream(t, c, "OUT", "out.>")
			msgs := outMsgs("out.x", "e", 2050)
			batches := splitInto(t, "w", msgs, 100) // 21 batches, the last of 50
			var seen []int
			var next uint64 = 1
			err := c.PublishAtomicBatches(testCtx(t), batches, BatchFlight{Window: window, Again: again}, func(i int, r BatchResult) error {
				seen = append(seen, i)
				if r.Status != BatchCommitted || r.FirstSeq != next || r.LastSeq != next+uint64(len(batches[i].Msgs))-1 {
					return fmt.Errorf("batch %d: %+v, want committed from sequence %d", i, r, next)
				}
				next = r.LastSeq + 1
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if want := seqTo(len(batches)); !reflect.DeepEqual(seen, want) {
				t.Fatalf("done saw %v, want %v", seen, want)
			}
			assertEachIDOnce(t, c, "OUT", msgs)
		})
	}
}

func seqTo(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// TestPublishAtomicBatchesAgainIsAlreadyCommitted: publishing the same
// batches again, as a restore does, stores nothing and reports each one
// committed before; a crash after some of them is recovered the same way.
func TestPublishAtomicBatchesAgainIsAlreadyCommitted(t *testing.T) {
	c := embedded(t)
	ensureAtomicStream(t, c, "OUT", "out.>")
	msgs := outMsgs("out.x", "e", 1000)
	batches := splitInto(t, "r", msgs, 100)
	if err := c.PublishAtomicBatches(testCtx(t), batches[:4], BatchFlight{Window: 3}, func(int, BatchResult) error { return nil }); err != nil {
		t.Fatal(err)
	}
	var statuses []BatchStatus
	err := c.PublishAtomicBatches(testCtx(t), batches, BatchFlight{Window: 3, Again: true}, func(_ int, r BatchResult) error {
		statuses = append(statuses, r.Status)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []BatchStatus{BatchAlreadyCommitted, BatchAlreadyCommitted, BatchAlreadyCommitted, BatchAlreadyCommitted,
		BatchCommitted, BatchCommitted, BatchCommitted, BatchCommitted, BatchCommitted, BatchCommitted}
	if !reflect.DeepEqual(statuses, want) {
		t.Fatalf("statuses %v, want %v", statuses, want)
	}
	assertEachIDOnce(t, c, "OUT", msgs)
}

// TestPublishAtomicBatchesStopsAtFirstFailure: a batch the server refuses
// stops the publication with its error; the commits already in flight are
// answered first (nothing is left unaccounted), done is not called after
// the failure, and no batch after those in flight is sent.
func TestPublishAtomicBatchesStopsAtFirstFailure(t *testing.T) {
	for _, again := range []bool{false, true} {
		t.Run(fmt.Sprint("again ", again), func(t *testing.T) {
			c := embedded(t)
			ensureAtomicStream(t, c, "OUT", "out.>")
			msgs := outMsgs("out.x", "e", 1000)
			msgs[450].Subject = "nowhere.x" // the commit of batch 4 (messages 400..499) has no stream
			batches := splitInto(t, "f", msgs, 100)
			var seen []int
			err := c.PublishAtomicBatches(testCtx(t), batches, BatchFlight{Window: 3, Again: again}, func(i int, _ BatchResult) error {
				seen = append(seen, i)
				return nil
			})
			if err == nil || !strings.Contains(err.Error(), "f-4") {
				t.Fatalf("err = %v, want the failure of batch f-4", err)
			}
			if !reflect.DeepEqual(seen, []int{0, 1, 2, 3}) {
				t.Fatalf("done saw %v, want the batches before the failure", seen)
			}
			// Batches 5 and 6 may have been sent before the failure was
			// answered (window 3), never batch 7 or later.
			if n := streamMsgs(t, c, "OUT"); n < 400 || n > 600 || n%100 != 0 {
				t.Fatalf("stream holds %d messages, want the 4 batches before the failure and at most 2 after", n)
			}
		})
	}
}

// TestPublishAtomicBatchesReplacesStaleOpenBatch: a batch left open on the
// server by a publication cut short (a crash half-way through it) is
// replaced when the batches are sent again with Again, in order; without
// Again it is stored too, whole and once.
func TestPublishAtomicBatchesReplacesStaleOpenBatch(t *testing.T) {
	for _, again := range []bool{true, false} {
		t.Run(fmt.Sprint("again ", again), func(t *testing.T) {
			c := embedded(t)
			ensureAtomicStream(t, c, "OUT", "out.>")
			msgs := outMsgs("out.x", "e", 500)
			batches := splitInto(t, "s", msgs, 100)
			for j := range 10 { // batch 2 half-sent, never committed: open on the server
				if err := c.NC.PublishMsg(batchMsg(batches[2].ID, j, batches[2].Msgs[j], false)); err != nil {
					t.Fatal(err)
				}
			}
			var order []uint64
			err := c.PublishAtomicBatches(testCtx(t), batches, BatchFlight{Window: 3, Again: again}, func(_ int, r BatchResult) error {
				if r.Status != BatchCommitted {
					return fmt.Errorf("batch %s: %s", r.BatchID, r.Status)
				}
				order = append(order, r.FirstSeq)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			assertEachIDOnce(t, c, "OUT", msgs)
			if again && !slices.IsSorted(order) {
				t.Fatalf("batches stored at %v: not in order", order)
			}
		})
	}
}

// TestPublishAtomicBatchesStreamWithoutAllowAtomic: without Again the
// first message is not answered, so a stream that refuses atomic batches
// shows at the commit, with the same error as PublishAtomicBatch's.
func TestPublishAtomicBatchesStreamWithoutAllowAtomic(t *testing.T) {
	c := embedded(t)
	ensureStream(t, c, "PLAIN", "plain.>")
	batches := splitInto(t, "p", outMsgs("plain.x", "e", 300), 100)
	err := c.PublishAtomicBatches(testCtx(t), batches, BatchFlight{Window: 3}, func(int, BatchResult) error { return nil })
	if !errors.Is(err, ErrAtomicPublishDisabled) || !strings.Contains(err.Error(), "allow_atomic") {
		t.Fatalf("err = %v, want ErrAtomicPublishDisabled naming allow_atomic", err)
	}
	if n := streamMsgs(t, c, "PLAIN"); n != 0 {
		t.Fatalf("stream holds %d messages", n)
	}
}

// TestPublishAtomicBatchesDoneErrorStops: an error of done (the caller
// could not handle a result) ends the publication with that error.
func TestPublishAtomicBatchesDoneErrorStops(t *testing.T) {
	c := embedded(t)
	ensureAtomicStream(t, c, "OUT", "out.>")
	batches := splitInto(t, "d", outMsgs("out.x", "e", 1000), 100)
	stop := errors.New("stop here")
	calls := 0
	err := c.PublishAtomicBatches(testCtx(t), batches, BatchFlight{Window: 4}, func(i int, _ BatchResult) error {
		calls++
		if i == 1 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 2 {
		t.Fatalf("err = %v after %d calls, want %v after 2", err, calls, stop)
	}
	if n := streamMsgs(t, c, "OUT"); n > 500 {
		t.Fatalf("stream holds %d messages: batches sent after the failure was known", n)
	}
}

func TestPublishAtomicBatchesRefusesInvalid(t *testing.T) {
	c := embedded(t)
	batches := []AtomicBatch{{ID: "ok", Msgs: outMsgs("out.x", "e", 2)}, {ID: "bad id", Msgs: outMsgs("out.x", "f", 2)}}
	if err := c.PublishAtomicBatches(testCtx(t), batches, BatchFlight{Window: 2}, func(int, BatchResult) error { return nil }); !errors.Is(err, ErrInvalidBatch) {
		t.Fatalf("err = %v, want ErrInvalidBatch", err)
	}
	if err := c.PublishAtomicBatches(testCtx(t), batches[:1], BatchFlight{}, func(int, BatchResult) error { return nil }); !errors.Is(err, ErrInvalidBatch) {
		t.Fatalf("window 0: err = %v, want ErrInvalidBatch", err)
	}
}
