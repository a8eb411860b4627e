package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nkeys"

	"github.com/wasmstream/wasmstream/internal/testutil/tlstest"
)

// serverTestBase is a whole pipeline but for its server block.
const serverTestBase = "name = \"p\"\nstream \"S\" {\n  subjects = [\"in.>\", \"out.>\"]\n}\nsource \"in\" {\n  stream  = \"S\"\n  subject = \"in.>\"\n}\n" +
	"operator \"o\" {\n  module = \"o.wasm\"\n  inputs = [\"in\"]\n  key {\n    json_field = \"id\"\n  }\n  outputs = { out = \"out\" }\n}\n" +
	"sink \"out\" {\n  subject = \"out.x\"\n}\n"

// parseServer parses serverTestBase with server as if the file were in dir.
func parseServer(t *testing.T, dir, server string) (*Pipeline, Diagnostics, error) {
	t.Helper()
	return Parse([]byte(serverTestBase+server), filepath.Join(dir, "p.hcl"))
}

// wantDiagnostic checks that diags hold exactly one diagnostic and that it says every phrase.
func wantDiagnostic(t *testing.T, what string, diags Diagnostics, phrases ...string) {
	t.Helper()
	if len(diags) != 1 {
		t.Errorf("%s: %d diagnostics, want 1:\n%v", what, len(diags), diags)
		return
	}
	for _, p := range phrases {
		if !strings.Contains(diags[0].Message, p) {
			t.Errorf("%s: %q does not say %q", what, diags[0].Message, p)
		}
	}
}

// writeSeed writes a user seed (or, with public, only the public key) into dir.
func writeSeed(t *testing.T, dir, name string, public bool) string {
	t.Helper()
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	text, _ := kp.Seed()
	if public {
		pub, _ := kp.PublicKey()
		text = []byte(pub)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, text, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestServerTLS: the tls block's paths resolve against the pipeline file's directory and
// must name files that hold what each setting says.
func TestServerTLS(t *testing.T) {
	certs := tlstest.Generate(t)
	dir := filepath.Dir(certs.CA) // Generate wrote ca.pem, client.pem, client-key.pem, server-key.pem here
	p, diags, err := parseServer(t, dir, "server {\n  url = \"tls://h:4222\"\n  tls {\n    ca_file   = \"ca.pem\"\n    cert_file = \"client.pem\"\n    key_file  = \"client-key.pem\"\n  }\n}\n")
	if err != nil || len(diags) != 0 {
		t.Fatalf("%v %v", err, diags)
	}
	if want := (TLS{CAFile: certs.CA, CertFile: certs.ClientCert, KeyFile: certs.ClientKey}); p.Server.TLS != want {
		t.Fatalf("tls %+v, want %+v", p.Server.TLS, want)
	}
	for _, tc := range []struct {
		tls     string
		phrases []string
	}{
		{`cert_file = "client.pem"`, []string{"server.tls: cert_file: needs key_file"}},
		{`key_file = "client-key.pem"`, []string{"server.tls: key_file: needs cert_file"}},
		{`ca_file = "client-key.pem"`, []string{"server.tls: ca_file:", "no certificate found", "the CA that signed the server's certificate"}},
		{`ca_file = "missing.pem"`, []string{"server.tls: ca_file:", filepath.Join(dir, "missing.pem"), "no such file"}},
		{"cert_file = \"client.pem\"\n    key_file = \"server-key.pem\"", []string{"server.tls: cert_file:", "the private key it was issued for"}},
	} {
		_, diags, _ := parseServer(t, dir, "server {\n  url = \"tls://h:4222\"\n  tls {\n    "+tc.tls+"\n  }\n}\n")
		wantDiagnostic(t, tc.tls, diags, tc.phrases...)
	}
}

func TestServerNkeySeed(t *testing.T) {
	dir := t.TempDir()
	seed := writeSeed(t, dir, "user.nk", false)
	writeSeed(t, dir, "public.txt", true)
	p, diags, err := parseServer(t, dir, "server {\n  url = \"nats://h:4222\"\n  nkey_seed = \"user.nk\"\n}\n")
	if err != nil || len(diags) != 0 || p.Server.NkeySeed != seed {
		t.Fatalf("nkey_seed %q (%v %v), want %q", p.Server.NkeySeed, err, diags, seed)
	}
	for _, tc := range []struct {
		server  string
		phrases []string
	}{
		{`nkey_seed = "public.txt"`, []string{"server: nkey_seed:", "holds a public key, not a seed"}},
		{`nkey_seed = "none.nk"`, []string{"server: nkey_seed:", "no such file"}},
		{"nkey_seed = \"user.nk\"\n  token = \"t\"", []string{"token and nkey_seed are alternatives"}},
	} {
		_, diags, _ := parseServer(t, dir, "server {\n  url = \"nats://h:4222\"\n  "+tc.server+"\n}\n")
		wantDiagnostic(t, tc.server, diags, tc.phrases...)
	}
}

func TestServerJetStreamAndInbox(t *testing.T) {
	p, diags, err := parseServer(t, t.TempDir(), "server {\n  url = \"nats://h:4222\"\n  jetstream_domain = \"hub\"\n  inbox_prefix = \"_INBOX_app\"\n}\n")
	if err != nil || len(diags) != 0 || p.Server.JetStreamDomain != "hub" || p.Server.InboxPrefix != "_INBOX_app" {
		t.Fatalf("%+v (%v %v)", p.Server, err, diags)
	}
	for _, tc := range []struct {
		server  string
		phrases []string
	}{
		{"jetstream_domain = \"hub\"\n  jetstream_api_prefix = \"$JS.x.API\"", []string{"jetstream_api_prefix: and jetstream_domain are alternatives"}},
		{`jetstream_domain = "a.b"`, []string{"jetstream_domain:", "is not a JetStream domain"}},
		{`jetstream_api_prefix = "$JS.*.API"`, []string{"jetstream_api_prefix:", "is not a subject prefix"}},
		{`inbox_prefix = "_INBOX_app."`, []string{"inbox_prefix:", "trailing '.'"}},
		{`inbox_prefix = "_INBOX >"`, []string{"inbox_prefix:", "is not a subject prefix"}},
	} {
		_, diags, _ := parseServer(t, t.TempDir(), "server {\n  url = \"nats://h:4222\"\n  "+tc.server+"\n}\n")
		wantDiagnostic(t, tc.server, diags, tc.phrases...)
	}
}

// TestEmbeddedDropsRemoteSettings: without url the settings of a remote connection are
// warned about one by one and dropped, and their files are not even opened.
func TestEmbeddedDropsRemoteSettings(t *testing.T) {
	server := "server {\n  nkey_seed = \"none.nk\"\n  jetstream_domain = \"hub\"\n  jetstream_api_prefix = \"$JS.x.API\"\n  inbox_prefix = \"_I\"\n  tls {\n    ca_file = \"none.pem\"\n  }\n}\n"
	p, diags, err := parseServer(t, t.TempDir(), server)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Server{EmbeddedPort: DefaultEmbeddedPort, OutageBudget: DefaultOutageBudget}); p.Server != want {
		t.Errorf("server %+v, want %+v", p.Server, want)
	}
	if len(diags.Warnings()) != 5 || len(diags) != 5 {
		t.Errorf("diagnostics:\n%v\nwant a warning for each of the 5 settings", diags)
	}
	for _, d := range diags.Warnings() {
		if !strings.Contains(d.Message, "ignored because url is not set") {
			t.Errorf("warning %q does not say why it is ignored", d.Message)
		}
	}
}
