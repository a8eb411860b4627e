package status_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/cluster/assign"
	"github.com/wasmstream/wasmstream/internal/cluster/ctlrec"
	"github.com/wasmstream/wasmstream/internal/cluster/lease"
	"github.com/wasmstream/wasmstream/internal/cluster/member"
	"github.com/wasmstream/wasmstream/internal/cluster/status"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
)

// Status reads the coordinator, the members (alive: heard a heartbeat;
// a member without heartbeats is shown as such) and the assignment from
// a real JetStream server; before any checkpoint it says so.
func TestReadBeforeTheFirstCheckpoint(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := natsio.Connect(ctx, natsio.ServerOptions{StoreDir: t.TempDir(), EmbeddedPort: natsio.RandomPort})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cfg := &config.Pipeline{Name: "p"}
	if _, err := status.Read(ctx, c.NC, c.JS, cfg, "wasmstream-p", "wasmstream-p-state", 0); err == nil || !strings.Contains(err.Error(), "no worker has started yet") {
		t.Fatalf("Read without a bucket: %v, want an error saying no worker started", err)
	}
	b, err := lease.EnsureBucket(ctx, c.JS, "wasmstream-p", 1)
	if err != nil {
		t.Fatal(err)
	}
	l, err := b.Acquire(ctx, "coordinator", "w1", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"w1", "w2"} {
		if _, err := member.Join(ctx, b, c.NC, "p", id, 10*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	ops := []assign.Operator{{Name: "risk", MaxParallelism: 8, Parallelism: 2}}
	a, _, err := assign.Plan(nil, ops, []string{"w1", "w2"}, assign.Stamp{Generation: l.Generation()})
	if err != nil {
		t.Fatal(err)
	}
	if err := ctlrec.WriteAssignment(ctx, l, a); err != nil {
		t.Fatal(err)
	}
	stopBeats := beat(t, c, "w1")
	defer stopBeats()

	s, err := status.Read(ctx, c.NC, c.JS, cfg, "wasmstream-p", "wasmstream-p-state", 1500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if s.Coordinator != "w1" || len(s.Workers) != 2 || !s.Workers[0].Alive || s.Workers[1].Alive || s.Checkpoint != nil {
		t.Fatalf("status %+v: want coordinator w1, w1 alive, w2 without heartbeats, no checkpoint", s)
	}
	if s.Assignment == nil || s.Assignment.Epoch != 1 || len(s.Assignment.Tasks) != 2 || s.Workers[0].Tasks != 1 {
		t.Fatalf("assignment %+v: want epoch 1, one task each", s.Assignment)
	}
	var out bytes.Buffer
	status.Print(&out, s)
	for _, want := range []string{"coordinator: w1", "w2                   no heartbeat", "last checkpoint: none completed yet", "risk      0     [0,4)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("printed status lacks %q:\n%s", want, out.String())
		}
	}
}

// beat sends w's heartbeats every 200 ms until stopped.
func beat(t *testing.T, c *natsio.Conn, w string) (stop func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				_ = c.NC.Publish(member.HeartbeatSubject("p", w), []byte(`{}`))
			}
		}
	}()
	return func() { close(done) }
}
