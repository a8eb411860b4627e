package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/internal/testutil/tlstest"
)

// saveContext writes a NATS CLI context under a temp XDG_CONFIG_HOME, where the nats CLI and
// natscontext look, and returns its file.
func saveContext(t *testing.T, name string, settings map[string]any) string {
	t.Helper()
	home := os.Getenv("XDG_CONFIG_HOME")
	if home == "" || !strings.HasPrefix(home, os.TempDir()) {
		home = t.TempDir()
		t.Setenv("XDG_CONFIG_HOME", home)
	}
	dir := filepath.Join(home, "nats", "context")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(settings)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, name+".json")
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestServerContext: a context completes the block; what the block writes wins, and the
// context's way to authenticate and JetStream address are replaced whole.
func TestServerContext(t *testing.T) {
	certs := tlstest.Generate(t)
	seedDir := t.TempDir()
	seed := writeSeed(t, seedDir, "ctx.nk", false)
	file := saveContext(t, "prod", map[string]any{
		"url": "tls://ctx:4222", "nkey": seed, "ca": certs.CA, "cert": certs.ClientCert, "key": certs.ClientKey,
		"jetstream_domain": "hub", "inbox_prefix": "_INBOX_ctx", "description": "read but unused",
	})
	other := tlstest.OtherCA(t)
	fromContext := Server{
		URL: "tls://ctx:4222", NkeySeed: seed, TLS: TLS{CAFile: certs.CA, CertFile: certs.ClientCert, KeyFile: certs.ClientKey},
		JetStreamDomain: "hub", InboxPrefix: "_INBOX_ctx", Context: "prod", ContextFile: file,
		EmbeddedPort: DefaultEmbeddedPort, OutageBudget: DefaultOutageBudget,
	}
	for _, tc := range []struct {
		block string
		edit  func(s *Server)
	}{
		{"", func(*Server) {}},
		{`url = "nats://block:4222"`, func(s *Server) { s.URL = "nats://block:4222" }},
		{`token = "t"`, func(s *Server) { s.NkeySeed, s.Token = "", "t" }},
		{"user = \"u\"\n  password = \"p\"", func(s *Server) { s.NkeySeed, s.User, s.Password = "", "u", "p" }},
		{`jetstream_api_prefix = "$JS.a.API"`, func(s *Server) { s.JetStreamDomain, s.JetStreamAPIPrefix = "", "$JS.a.API" }},
		{`inbox_prefix = "_INBOX_block"`, func(s *Server) { s.InboxPrefix = "_INBOX_block" }},
		{"tls {\n    ca_file = \"" + other + "\"\n  }", func(s *Server) { s.TLS.CAFile = other }},
	} {
		p, diags, err := parseServer(t, t.TempDir(), "server {\n  context = \"prod\"\n  "+tc.block+"\n}\n")
		if err != nil || len(diags) != 0 {
			t.Errorf("%q: %v %v", tc.block, err, diags)
			continue
		}
		want := fromContext
		tc.edit(&want)
		if p.Server != want {
			t.Errorf("%q: server\n%+v\nwant\n%+v", tc.block, p.Server, want)
		}
	}
}

func TestServerContextErrors(t *testing.T) {
	dir := saveContext(t, "nourl", map[string]any{"user": "u", "password": "p"})
	saveContext(t, "nsc", map[string]any{"url": "nats://h:4222", "nsc": "nsc://op/acct/user"})
	saveContext(t, "halfcert", map[string]any{"url": "nats://h:4222", "cert": "/c.pem"})
	saveContext(t, "badca", map[string]any{"url": "nats://h:4222", "ca": "/nowhere/ca.pem"})
	saveContext(t, "badurl", map[string]any{"url": "http://h:80"})
	saveContext(t, "both", map[string]any{"url": "nats://h:4222", "jetstream_domain": "a", "jetstream_api_prefix": "$JS.b.API"})
	if err := os.WriteFile(filepath.Join(filepath.Dir(dir), "broken.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctxDir := filepath.Dir(dir)
	for _, tc := range []struct {
		name    string
		phrases []string
	}{
		{"staging", []string{`server: context: no NATS context "staging" in ` + ctxDir, "nats context save staging"}},
		{"../prod", []string{"is not a context name"}},
		{"nourl", []string{`NATS context "nourl" (` + filepath.Join(ctxDir, "nourl.json") + `): has no url`}},
		{"nsc", []string{"sets nsc", "does not support"}},
		{"halfcert", []string{"sets only one of cert and key"}},
		{"badca", []string{"ca:", "/nowhere/ca.pem", "no such file"}},
		{"badurl", []string{`url "http://h:80" is not a NATS URL`}},
		{"both", []string{"sets both jetstream_domain and jetstream_api_prefix"}},
		{"broken", []string{"is not a context file", "nats context save"}},
	} {
		_, diags, _ := parseServer(t, t.TempDir(), "server {\n  context = \""+tc.name+"\"\n}\n")
		wantDiagnostic(t, tc.name, diags, tc.phrases...)
	}
}

// TestServerContextPrinted: the effective config shows what the context supplied, secrets
// redacted, and names the context in a comment only; it reads back as the same connection.
func TestServerContextPrinted(t *testing.T) {
	certs := tlstest.Generate(t)
	file := saveContext(t, "prod", map[string]any{"url": "nats://ctx:4222", "user": "alice", "password": "s3cret", "ca": certs.CA, "jetstream_domain": "hub"})
	p, _, err := parseServer(t, t.TempDir(), "server {\n  context = \"prod\"\n}\n")
	if err != nil {
		t.Fatal(err)
	}
	printed := p.String()
	spaced := strings.Join(strings.Fields(printed), " ") // the alignment of "=" does not matter here
	for _, want := range []string{`url = "nats://ctx:4222"`, `user = "alice"`, `password = "<redacted>"`,
		`jetstream_domain = "hub"`, `tls { ca_file = "` + certs.CA + `" }`, `# completed from NATS context "prod" (` + file + `)`} {
		if !strings.Contains(spaced, want) {
			t.Errorf("printed config lacks %s:\n%s", want, printed)
		}
	}
	if strings.Contains(printed, "s3cret") || strings.Contains(printed, "context =") {
		t.Errorf("printed config shows the password or a context setting:\n%s", printed)
	}
	again, _, err := Parse([]byte(printed), "/cfg/p.hcl")
	if err != nil {
		t.Fatal(err)
	}
	want := p.Server
	want.Context, want.ContextFile, want.Password = "", "", redacted
	if again.Server != want {
		t.Errorf("read back as\n%+v\nwant\n%+v", again.Server, want)
	}
}
