package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/synadia-io/orbit.go/natscontext"

	"github.com/wasmstream/wasmstream/internal/testutil/tlstest"
)

// TestContextSuppliesURLAndTLS: a NATS CLI context in $XDG_CONFIG_HOME gives a pipeline with
// only `context = "prod"` the server's url and the mTLS files, and the run works through
// them. natscontext, the nats CLI's own reader, connects with the same file, so the config
// parser reads contexts as the CLI does.
func TestContextSuppliesURLAndTLS(t *testing.T) {
	certs := tlstest.Generate(t)
	url := mutualTLSServer(t, certs)
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	dir := filepath.Join(home, "nats", "context")
	raw, _ := json.Marshal(map[string]string{"url": url, "ca": certs.CA, "cert": certs.ClientCert, "key": certs.ClientKey})
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "prod.json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}

	nc, _, err := natscontext.Connect("prod")
	if err != nil {
		t.Fatalf("natscontext cannot use the context: %v", err)
	}
	nc.Close()

	cfg := remotePipeline(t, `context = "prod"`)
	if cfg.Server.URL != url || cfg.Server.TLS.CertFile != certs.ClientCert {
		t.Fatalf("server %+v, want the context's url %s and client certificate", cfg.Server, url)
	}
	wantPinnedOutputs(t, cfg)
}
