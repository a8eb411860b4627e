package natsio

import (
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// TestPublishAtomicBatchFrozenServer: a commit whose server freezes is cut
// short when the client notices (its answer would go to the lost
// connection), with an outage error rather than after the whole request
// timeout; committing again once the server answers stores the batch once.
func TestPublishAtomicBatchFrozenServer(t *testing.T) {
	srv := embedded(t)
	ensureAtomicStream(t, srv, "OUT", "out.>")
	proxy := testutil.StartFreezeProxyFor(t, srv.ClientURL())
	c := external(t, proxy.URL)
	msgs := outMsgs("out.x", "f", 100)
	proxy.Freeze()
	_, err := c.PublishAtomicBatch(testCtx(t), "f-1", msgs)
	if !errors.Is(err, ErrBatchUnacknowledged) || !errors.Is(err, nats.ErrDisconnected) || !IsOutage(err) {
		t.Fatalf("commit to a frozen server = %v, want ErrBatchUnacknowledged cut by the disconnect", err)
	}
	proxy.Thaw()
	waitConnected(t, c)
	res, err := c.PublishAtomicBatch(testCtx(t), "f-1", msgs)
	if err != nil || (res.Status != BatchCommitted && res.Status != BatchAlreadyCommitted) {
		t.Fatalf("commit again after the freeze = %+v, %v", res, err)
	}
	if got := streamMsgs(t, srv, "OUT"); got != 100 {
		t.Fatalf("stream holds %d messages, want the batch's 100 once", got)
	}
}

// TestPublishAtomicBatchesDropAfterCommitSent: a connection that drops
// after a batch's commit was sent, before anyone waits for its answer (as
// when the next batch's first message is being answered), ends that wait
// with an outage error, not after the whole answer timeout; publishing the
// batches again once the server answers stores each message once.
func TestPublishAtomicBatchesDropAfterCommitSent(t *testing.T) {
	srv := embedded(t)
	ensureAtomicStream(t, srv, "OUT", "out.>")
	proxy := testutil.StartFreezeProxyFor(t, srv.ClientURL())
	c := external(t, proxy.URL)
	msgs := outMsgs("out.x", "d", 300)
	batches := splitInto(t, "d", msgs, 100)
	proxy.Freeze()
	p, err := c.sendBatch(testCtx(t), 0, batches[0], false)
	if err != nil {
		t.Fatal(err)
	}
	waitDisconnected(t, c)
	if _, err := p.answer(c); !errors.Is(err, ErrBatchUnacknowledged) || !errors.Is(err, nats.ErrDisconnected) || !IsOutage(err) {
		t.Fatalf("answer after the drop = %v, want ErrBatchUnacknowledged cut by the disconnect", err)
	}
	proxy.Thaw()
	waitConnected(t, c)
	if err := c.PublishAtomicBatches(testCtx(t), batches, BatchFlight{Window: 3, Again: true}, func(int, BatchResult) error { return nil }); err != nil {
		t.Fatal(err)
	}
	assertEachIDOnce(t, srv, "OUT", msgs)
}

// waitDisconnected waits until c noticed that its connection dropped.
func waitDisconnected(t *testing.T, c *Conn) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for c.NC.IsConnected() {
		if time.Now().After(deadline) {
			t.Fatalf("the drop was not noticed within %s", testTimeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
