package config

import (
	"strings"
	"testing"
	"time"
)

func TestValidServerURLs(t *testing.T) {
	for s, want := range map[string]bool{
		"nats://host:4222":                true,
		"host:4222":                       true,
		"tls://a:4222, nats://b:4222":     true,
		"wss://host/ws":                   true,
		"nats://user:pw@host:4222":        true,
		"http://host:4222":                false,
		"nats://":                         false,
		"nats://a:4222,":                  false,
		"nats://host:4222,ftp://other:21": false,
		"nats://[::1":                     false,
	} {
		if got := validServerURLs(s); got != want {
			t.Errorf("validServerURLs(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestRedactURLs(t *testing.T) {
	for in, want := range map[string]string{
		"nats://host:4222":                    "nats://host:4222",
		"nats://alice:secret@host:4222":       "nats://alice:xxxxx@host:4222",
		"nats://bob@h:1,nats://carol:pw@h2:2": "nats://bob@h:1,nats://carol:xxxxx@h2:2",
	} {
		if got := redactURLs(in); got != want {
			t.Errorf("redactURLs(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestServerModes: a server block without url is the embedded server, whose settings win, and
// authentication settings meant for a remote server are dropped from it with a warning.
func TestServerModes(t *testing.T) {
	base := "name = \"p\"\nstream \"S\" {\n  subjects = [\"in.>\", \"out.>\"]\n}\nsource \"in\" {\n  stream  = \"S\"\n  subject = \"in.>\"\n}\n" +
		"operator \"o\" {\n  module = \"o.wasm\"\n  inputs = [\"in\"]\n  key {\n    json_field = \"id\"\n  }\n  outputs = { out = \"out\" }\n}\n" +
		"sink \"out\" {\n  subject = \"out.x\"\n}\n"
	for _, tc := range []struct {
		server   string
		want     Server
		warnings int
	}{
		{"", Server{EmbeddedPort: 4222, OutageBudget: DefaultOutageBudget}, 0},
		{"server {\n  embedded_port = 14222\n}\n", Server{EmbeddedPort: 14222, OutageBudget: DefaultOutageBudget}, 0},
		{"server {\n  url = \"\"\n  token = \"t\"\n}\n", Server{EmbeddedPort: 4222, OutageBudget: DefaultOutageBudget}, 1},
		{"server {\n  url = \"nats://h:4222\"\n  token = \"t\"\n}\n", Server{URL: "nats://h:4222", Token: "t", EmbeddedPort: 4222, OutageBudget: DefaultOutageBudget}, 0},
		{"server {\n  max_payload = 262144\n}\n", Server{EmbeddedPort: 4222, MaxPayload: 262144, OutageBudget: DefaultOutageBudget}, 0},
		{"server {\n  url = \"nats://h:4222\"\n  max_payload = 262144\n}\n", Server{URL: "nats://h:4222", EmbeddedPort: 4222, OutageBudget: DefaultOutageBudget}, 1},
		{"server {\n  url = \"nats://h:4222\"\n  outage_budget = \"2m\"\n}\n", Server{URL: "nats://h:4222", EmbeddedPort: 4222, OutageBudget: 2 * time.Minute}, 0},
	} {
		p, diags, err := Parse([]byte(base+tc.server), "/cfg/p.hcl")
		if err != nil {
			t.Fatalf("%q: %v", tc.server, err)
		}
		if p.Server != tc.want || len(diags.Warnings()) != tc.warnings {
			t.Errorf("%q: server %+v, warnings %v; want %+v and %d warnings", tc.server, p.Server, diags, tc.want, tc.warnings)
		}
	}
}

// The embedded server's max_payload is printed in the effective config and reads back; without
// it the printed config says nothing (the server's default).
func TestMaxPayloadPrinted(t *testing.T) {
	base := "name = \"p\"\nstream \"S\" {\n  subjects = [\"in.>\", \"out.>\"]\n}\nsource \"in\" {\n  stream  = \"S\"\n  subject = \"in.>\"\n}\n" +
		"operator \"o\" {\n  module = \"o.wasm\"\n  inputs = [\"in\"]\n  key {\n    json_field = \"id\"\n  }\n  outputs = { out = \"out\" }\n}\n" +
		"sink \"out\" {\n  subject = \"out.x\"\n}\n"
	for _, tc := range []struct {
		server  string
		printed bool
	}{
		{"server {\n  max_payload = 8388608\n}\n", true},
		{"", false},
	} {
		p, _, err := Parse([]byte(base+tc.server), "/cfg/p.hcl")
		if err != nil {
			t.Fatal(err)
		}
		printed := p.String()
		if strings.Contains(printed, "max_payload") != tc.printed {
			t.Errorf("%q: printed config (max_payload printed: want %v):\n%s", tc.server, tc.printed, printed)
		}
		again, _, err := Parse([]byte(printed), "/cfg/p.hcl")
		if err != nil || again.Server != p.Server {
			t.Errorf("%q: read back as %+v (%v), want %+v", tc.server, again.Server, err, p.Server)
		}
	}
}
