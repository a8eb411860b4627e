package control

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/natsio"
)

// fakePipeline answers control requests the way a pipeline would.
type fakePipeline struct{ upgrades []UpgradeRequest }

func (f *fakePipeline) Trigger(context.Context) (TriggerResult, error) {
	return TriggerResult{ID: 7, Duration: time.Millisecond}, nil
}

func (f *fakePipeline) Upgrade(_ context.Context, req UpgradeRequest) UpgradeReply {
	f.upgrades = append(f.upgrades, req)
	if req.Module == "bad" {
		return UpgradeReply{Error: "module bad: not found"}
	}
	return UpgradeReply{Accepted: true, Module: "abc"}
}

func connect(t *testing.T) *natsio.Conn {
	t.Helper()
	conn, err := natsio.Connect(context.Background(), natsio.ServerOptions{EmbeddedPort: testutil.FreePort(t), StoreDir: t.TempDir(), Logger: hclog.NewNullLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return conn
}

// Requests reach the handler over a real NATS server and the answers come
// back; once the server is closed, a request says the pipeline is not
// running.
func TestControlRoundTrip(t *testing.T) {
	conn := connect(t)
	h := &fakePipeline{}
	srv, err := Serve(conn.NC, "p1", time.Second, h)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Trigger(conn.NC, "p1", 5*time.Second)
	if err != nil || r.ID != 7 {
		t.Fatalf("trigger: %+v, %v", r, err)
	}
	reply, err := Upgrade(conn.NC, "p1", UpgradeRequest{Operator: "risk", Module: "risk@1234abcd"}, 5*time.Second)
	if err != nil || !reply.Accepted || len(h.upgrades) != 1 || h.upgrades[0].Operator != "risk" {
		t.Fatalf("upgrade: %+v, %v; handler saw %+v", reply, err, h.upgrades)
	}
	if reply, _ := Upgrade(conn.NC, "p1", UpgradeRequest{Operator: "risk", Module: "bad"}, 5*time.Second); reply.Accepted || reply.Error == "" {
		t.Fatalf("a refused upgrade answered %+v", reply)
	}
	if _, err := Trigger(conn.NC, "other", 5*time.Second); !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), CheckpointSubject("other")) {
		t.Fatalf("another pipeline's trigger: %v, want ErrNotRunning naming the subject", err)
	}
	srv.Close()
	if _, err := Trigger(conn.NC, "p1", 5*time.Second); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("after Close: %v, want ErrNotRunning", err)
	}
}
