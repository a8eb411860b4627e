package control

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats.go"

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

// stuckPipeline never finishes its checkpoint, like a pipeline that dies
// in the middle of one.
type stuckPipeline struct{ *fakePipeline }

func (stuckPipeline) Trigger(ctx context.Context) (TriggerResult, error) {
	<-ctx.Done()
	return TriggerResult{}, ctx.Err()
}

// A long checkpoint keeps the client waiting (heartbeats), and a pipeline
// that dies in the middle of one is reported as gone at once rather than
// after the whole timeout.
func TestTriggerNoticesAPipelineThatDied(t *testing.T) {
	defer func(d time.Duration) { goneAfter = d }(goneAfter)
	goneAfter = 3 * Heartbeat
	client := connect(t)
	pipelineConn, err := nats.Connect(client.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Serve(pipelineConn, "p2", time.Hour, stuckPipeline{&fakePipeline{}}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Trigger(client.NC, "p2", time.Minute)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the trigger ended while the checkpoint was in progress: %v", err)
	case <-time.After(2 * goneAfter):
		// still waiting past goneAfter: the heartbeats keep it
	}
	pipelineConn.Close() // the pipeline dies mid-checkpoint
	err = <-done
	if !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), "stopped answering") {
		t.Fatalf("got %v, want ErrNotRunning saying the pipeline stopped answering", err)
	}
}
