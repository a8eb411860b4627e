package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
	"github.com/wasmstream/wasmstream/internal/testutil/tlstest"
)

// externalServer runs a JetStream nats-server on a random 127.0.0.1 port with a temp store,
// configured further by edit (TLS, users), and returns its client URL: the pipeline's
// "server at url".
func externalServer(t *testing.T, edit func(*server.Options)) string {
	t.Helper()
	opts := &server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true}
	edit(opts)
	ns, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(time.Minute) {
		t.Fatal("nats-server not ready after a minute")
	}
	t.Cleanup(func() {
		ns.Shutdown()
		ns.WaitForShutdown()
	})
	return ns.ClientURL()
}

// mutualTLSServer demands a client certificate signed by certs' CA.
func mutualTLSServer(t *testing.T, certs tlstest.Files) string {
	t.Helper()
	return externalServer(t, func(o *server.Options) {
		o.TLSConfig, o.TLSVerify = certs.ServerConfig(t, true), true
	})
}

// remotePipeline is the payment-risk pipeline of testPipeline with its own server block body.
func remotePipeline(t *testing.T, serverBody string) *config.Pipeline {
	t.Helper()
	wasm := testutil.GoGuest(t, paymentRiskPkg)
	src := fmt.Sprintf(`
name     = "payment-risk"
data_dir = %q
server {
%s
}
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
  outputs = { out = "risk-totals" }
}
sink "risk-totals" { subject = "risk.totals" }
`, testutil.PrivateTempDir(t), serverBody, wasm)
	path := filepath.Join(t.TempDir(), "pipeline.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func tlsBlock(certs tlstest.Files) string {
	return fmt.Sprintf("tls {\n  ca_file = %q\n  cert_file = %q\n  key_file = %q\n}", certs.CA, certs.ClientCert, certs.ClientKey)
}

// wantPinnedOutputs runs cfg on pinnedEvents and checks its outputs, read back through the
// same server settings.
func wantPinnedOutputs(t *testing.T, cfg *config.Pipeline) {
	t.Helper()
	stats := runUntilIdle(t, cfg, pinnedEvents)
	if stats.Processed != 3 || stats.Emitted != 2 || stats.DeadLettered != 0 {
		t.Fatalf("stats %+v, want 3 processed, 2 emitted", stats)
	}
	got := results(t, readSubject(t, cfg, "risk.totals"))
	want := []riskResult{{"acct-47", "evt-47", 1200, 1200}, {"acct-47", "evt-48", 900, 2100}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("outputs %+v, want %+v", got, want)
	}
}

// TestPipelineOverMutualTLS runs the pinned payment-risk case against a server that demands
// client certificates: every connection of the run (streams, sources, sinks, checkpoints)
// and of the client that reads the outputs goes through server.tls. Without a client
// certificate the same pipeline is refused with the fix.
func TestPipelineOverMutualTLS(t *testing.T) {
	certs := tlstest.Generate(t)
	url := mutualTLSServer(t, certs)
	wantPinnedOutputs(t, remotePipeline(t, fmt.Sprintf("url = %q\n%s", url, tlsBlock(certs))))

	noCert := remotePipeline(t, fmt.Sprintf("url = %q\ntls {\n  ca_file = %q\n}", url, certs.CA))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := Open(ctx, noCert, Options{Logger: testLogger(t)})
	if err == nil {
		p.Close()
		t.Fatal("the pipeline ran without a client certificate on a server that demands one")
	}
	if !strings.Contains(err.Error(), "requires a client certificate") || !strings.Contains(err.Error(), "server.tls.cert_file") {
		t.Fatalf("error %q does not say that the server requires a client certificate and what to set", err)
	}
}
