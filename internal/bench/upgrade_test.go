package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/natsio"
)

// BenchmarkUpgradePause measures the pause a running pipeline sees when its
// payment-risk operator is upgraded from release 1 to release 2, whose
// migration converts every account's stored total (UPG_KEYS accounts,
// default 1000): from the stop at the upgrade's checkpoint until the
// pipeline processes again with the new module, as the engine reports it
// (UpgradeOutcome.Pause). Also reported: the time of the request (checks
// and the dry-run migration while release 1 keeps running).
func BenchmarkUpgradePause(b *testing.B) {
	keys := envInt(b, "UPG_KEYS", 1000)
	v1 := testutil.GoGuestWithFlags(b, "./examples/payment-risk/operator", "-X main.release=1")
	v2 := testutil.GoGuestWithFlags(b, "./examples/payment-risk/operator", "-X main.release=2")
	for b.Loop() {
		pause, request := upgradeOnce(b, v1, v2, keys)
		b.ReportMetric(float64(pause.Milliseconds()), "pause-ms")
		b.ReportMetric(float64(request.Milliseconds()), "request-ms")
	}
}

func upgradeOnce(b *testing.B, v1, v2 string, keys int) (pause, request time.Duration) {
	cfg := upgradeConfig(b, v1)
	publishAccounts(b, cfg, keys)
	outcome := make(chan engine.UpgradeOutcome, 1)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- engine.Serve(ctx, cfg, engine.Options{Logger: hclog.NewNullLogger(), Checkpoint: onDemand,
			OnUpgrade: func(o engine.UpgradeOutcome) { outcome <- o }})
	}()
	waitCheckpointed(b, cfg, uint64(keys))
	start := time.Now()
	r, err := engine.RequestUpgrade(context.Background(), cfg, engine.UpgradeRequest{Operator: "risk", Module: v2}, 5*time.Minute)
	if err != nil || !r.Accepted {
		b.Fatalf("upgrade: %+v %v", r, err)
	}
	request = time.Since(start)
	o := <-outcome
	stop()
	if err := <-done; err != nil || o.RolledBack {
		b.Fatalf("serve: %v, outcome %+v", err, o)
	}
	return o.Pause, request
}

// upgradeConfig is a payment-risk pipeline running module.
func upgradeConfig(b *testing.B, module string) *config.Pipeline {
	b.Helper()
	src := fmt.Sprintf(`name = "upg"
data_dir = %q
server { embedded_port = %d }
stream "PAYMENTS" { subjects = ["payments.>"] }
stream "RISK" { subjects = ["risk.>"] }
source "payments" {
  stream  = "PAYMENTS"
  subject = "payments.in"
}
operator "risk" {
  module  = %q
  inputs  = ["payments"]
  key { json_field = "account" }
  outputs = { out = "totals" }
}
sink "totals" { subject = "risk.totals" }
`, filepath.Join(b.TempDir(), "data"), testutil.FreePort(b), module)
	path := filepath.Join(b.TempDir(), "pipeline.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	cfg, _, err := config.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	return cfg
}

// publishAccounts stores one payment for each of n accounts.
func publishAccounts(b *testing.B, cfg *config.Pipeline, n int) {
	b.Helper()
	ctx := context.Background()
	c, err := engine.ConnectClient(ctx, cfg, hclog.NewNullLogger(), engine.AsControl)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	sink := c.NewSink(4096)
	defer sink.Close()
	for i := range n {
		data := fmt.Appendf(nil, `{"account":"acct-%d","event":"evt-%d","cents":%d}`, i, i, i+1)
		if err := sink.Publish(ctx, natsio.OutMessage{Subject: "payments.in", Data: data}); err != nil {
			b.Fatal(err)
		}
	}
	if err := sink.Flush(ctx); err != nil {
		b.Fatal(err)
	}
}

// waitCheckpointed triggers checkpoints until one covers n records.
func waitCheckpointed(b *testing.B, cfg *config.Pipeline, n uint64) {
	b.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		r, err := engine.TriggerCheckpoint(context.Background(), cfg, hclog.NewNullLogger(), time.Minute)
		if err == nil {
			m, err := checkpoint.Read(engine.CheckpointRoot(cfg), r.ID)
			if err == nil && len(m.Sources) == 1 && m.Sources[0].LastSequence >= n {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	b.Fatalf("no checkpoint covered %d records", n)
}
