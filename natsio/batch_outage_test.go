package natsio

import (
	"errors"
	"testing"

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
	proxy := testutil.StartFreezeProxy(t, portOf(t, srv.ClientURL()))
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
