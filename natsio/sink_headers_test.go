package natsio

import (
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestWithMsgIDDropsBatchHeaders: headers of the atomic batch protocol,
// forwarded from an input stored by a batch, never leave with an output;
// the caller's header map is not modified.
func TestWithMsgIDDropsBatchHeaders(t *testing.T) {
	in := nats.Header{"Nats-Batch-Id": {"b-1"}, "Nats-Batch-Sequence": {"3"}, "Nats-Batch-Commit": {"1"}, "Trace": {"t"}}
	for _, id := range []string{"", "out-1"} {
		got := withMsgID(in, id)
		for k := range got {
			if isBatchHeader(k) {
				t.Fatalf("id %q: header %s kept", id, k)
			}
		}
		if got.Get("Trace") != "t" || got.Get(jetstream.MsgIDHeader) != id {
			t.Fatalf("id %q: headers %v", id, got)
		}
	}
	if len(in) != 4 {
		t.Fatalf("the caller's headers were modified: %v", in)
	}
	plain := nats.Header{"Trace": {"t"}}
	if got := withMsgID(plain, ""); len(got) != 1 {
		t.Fatalf("headers without batch headers changed: %v", got)
	}
}
