package natsio

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// TestSinkResendsOnlyThroughItsGate: publishes a frozen server failed are
// sent again only when SinkOptions.BeforeResend lets them. Refused, they
// fail with ErrResendRefused and none of them is stored; let through after
// a wait, every one is acknowledged once. A cluster worker cut off from
// NATS once resent its outputs after the partition healed, when its tasks
// already ran elsewhere.
func TestSinkResendsOnlyThroughItsGate(t *testing.T) {
	for _, refuse := range []bool{true, false} {
		t.Run(fmt.Sprintf("refuse=%t", refuse), func(t *testing.T) {
			srv := embedded(t)
			ensureStream(t, srv, "OUT", "out.>")
			proxy := testutil.StartFreezeProxyFor(t, srv.ClientURL())
			c := externalWith(t, ServerOptions{URL: proxy.URL, NoReconnectBuffer: true})
			lost := c.NC.StatusChanged(nats.DISCONNECTED, nats.RECONNECTING)
			asked := make(chan struct{}, 1)
			gate := func(ctx context.Context) error {
				select {
				case asked <- struct{}{}:
				default:
				}
				if refuse {
					return errors.New("the part's tasks moved")
				}
				select {
				case <-time.After(200 * time.Millisecond):
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			s := c.NewSinkWith(SinkOptions{BeforeResend: gate})
			defer s.Close()
			ctx := testCtx(t)
			const n = 2000
			proxy.Freeze()
			for i := range n {
				if err := s.Publish(ctx, OutMessage{Subject: "out.x", MsgID: fmt.Sprint(i), Data: []byte("x")}); err != nil {
					t.Fatalf("publish %d: %v", i, err)
				}
			}
			select {
			case <-lost:
			case <-time.After(frozenNoticeLimit):
				t.Fatalf("the client did not notice the frozen server within %s", frozenNoticeLimit)
			}
			proxy.Thaw() // what the frozen connection held is lost
			err := s.Flush(ctx)
			select {
			case <-asked:
			default:
				t.Fatal("the sink resent without asking BeforeResend")
			}
			stored := streamMsgs(t, srv, "OUT")
			if refuse {
				if !errors.Is(err, ErrResendRefused) || stored != 0 {
					t.Fatalf("Flush = %v and %d stored; want ErrResendRefused and nothing stored", err, stored)
				}
				return
			}
			if err != nil || stored != n {
				t.Fatalf("Flush = %v and %d stored; want nil and each of the %d once", err, stored, n)
			}
		})
	}
}
