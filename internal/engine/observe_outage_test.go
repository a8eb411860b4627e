package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// startServer runs a JetStream server in this process on port with its
// store in dir; starting another on the same port and dir after Shutdown
// brings the same server back.
func startServer(t *testing.T, port int, dir string) *server.Server {
	t.Helper()
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: dir, NoSigs: true,
		JetStreamMaxMemory: 64 << 20, JetStreamMaxStore: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(30 * time.Second) {
		t.Fatalf("NATS server on port %d not ready", port)
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	return ns
}

// TestReadyFollowsNATS: /readyz is ready while the pipeline is connected,
// not ready with a reason naming NATS once the server is gone (and
// /api/pipeline still answers, saying what it could not read), and ready
// again after it came back and the client reconnected.
func TestReadyFollowsNATS(t *testing.T) {
	port, store := testutil.FreePort(t), filepath.Join(t.TempDir(), "jetstream")
	ns := startServer(t, port, store)
	cfg := observedSums(t, newSumSetup(t, 1), fmt.Sprintf("server { url = \"nats://127.0.0.1:%d\" }\n", port))
	obs, err := StartObserver(cfg, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := Open(ctx, cfg, quietOptions(t, Options{Observer: obs, StopWhenIdle: -1, Checkpoint: CheckpointOptions{Interval: -1}}))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Run(runCtx) }()
	wantReady(t, obs, true, "")

	ns.Shutdown()
	ns.WaitForShutdown()
	waitFor(t, "/readyz to say NATS is away", func() bool {
		code, body := httpGet(t, obs.URL()+"/readyz")
		return code == 503 && strings.Contains(body, "not connected to NATS")
	})
	if f := scrape(t, obs); f.sum("wasmstream_nats_connected", nil) != 0 || f.sum("wasmstream_pipeline_ready", nil) != 0 {
		t.Errorf("while NATS is away: connected %v, ready %v, want 0 and 0", f.sum("wasmstream_nats_connected", nil), f.sum("wasmstream_pipeline_ready", nil))
	}
	checkAPIWhileNATSAway(t, obs)

	startServer(t, port, store)
	waitFor(t, "/readyz to be ready after NATS came back", func() bool {
		code, _ := httpGet(t, obs.URL()+"/readyz")
		return code == 200
	})
	if f := scrape(t, obs); f.sum("wasmstream_nats_reconnects_total", nil) < 1 {
		t.Errorf("reconnects %v after the server came back, want at least 1", f.sum("wasmstream_nats_reconnects_total", nil))
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
