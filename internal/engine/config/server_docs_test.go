package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmstream/wasmstream/internal/testutil/docsnippet"
	"github.com/wasmstream/wasmstream/internal/testutil/tlstest"
)

// serverSnippetLang marks the server examples of docs/config.md that name files (TLS
// certificates, a seed, a NATS context): "```hcl server" renders as HCL, and TestDocsSnippets,
// which has no such files, leaves them to this test.
const serverSnippetLang = "hcl server"

// TestDocsServerSnippets loads each such example, completed like a fragment, beside the files it
// names and with a context "prod" saved, and wants it to load without a diagnostic.
func TestDocsServerSnippets(t *testing.T) {
	snippets, err := docsnippet.Read(docsPath, serverSnippetLang)
	if err != nil {
		t.Fatal(err)
	}
	if len(snippets) < 2 {
		t.Fatalf("found %d %q snippets in %s, want the TLS and the context example", len(snippets), serverSnippetLang, docsPath)
	}
	minimal := minimalExample(t)
	dir := serverSnippetFiles(t)
	saveContext(t, "prod", map[string]any{"url": "tls://nats.example.com:4222"})
	for _, s := range snippets {
		path := filepath.Join(dir, "pipeline.hcl")
		if err := os.WriteFile(path, []byte(completeFragment(t, s, minimal)), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, diags, _ := Load(path); len(diags) > 0 {
			t.Errorf("%s: the snippet does not load cleanly:\n%v", s, inMarkdown(diags, s))
		}
	}
}

// serverSnippetFiles makes a directory with the files the examples name under certs/.
func serverSnippetFiles(t *testing.T) string {
	t.Helper()
	certs := tlstest.Generate(t)
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "certs"), 0o700); err != nil {
		t.Fatal(err)
	}
	for from, to := range map[string]string{certs.CA: "ca.pem", certs.ClientCert: "client.pem", certs.ClientKey: "client-key.pem"} {
		raw, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "certs", to), raw, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeSeed(t, filepath.Join(dir, "certs"), "payment-risk.nk", false)
	return dir
}
