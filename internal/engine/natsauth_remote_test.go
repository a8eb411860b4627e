package engine

import (
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// TestServerOptionsCarryTheConnection: every setting of a server at url reaches natsio, and
// none of them reaches the embedded server.
func TestServerOptionsCarryTheConnection(t *testing.T) {
	remote := config.Server{
		URL: "tls://h:4222", NkeySeed: "/s/u.nk", InboxPrefix: "_INBOX_p", JetStreamDomain: "hub",
		TLS: config.TLS{CAFile: "/s/ca.pem", CertFile: "/s/c.pem", KeyFile: "/s/k.pem"},
	}
	opts := serverOptions(&config.Pipeline{Name: "p", DataDir: t.TempDir(), Server: remote}, hclog.NewNullLogger())
	if opts.URL != remote.URL || opts.NkeySeedFile != "/s/u.nk" || opts.InboxPrefix != "_INBOX_p" || opts.JetStreamDomain != "hub" ||
		opts.TLSCAFile != "/s/ca.pem" || opts.TLSCertFile != "/s/c.pem" || opts.TLSKeyFile != "/s/k.pem" {
		t.Errorf("options %+v lose settings of %+v", opts, remote)
	}
	embedded := remote
	embedded.URL = ""
	opts = serverOptions(&config.Pipeline{Name: "p", DataDir: t.TempDir(), Server: embedded}, hclog.NewNullLogger())
	if opts.NkeySeedFile != "" || opts.TLSCAFile != "" || opts.JetStreamDomain != "" || opts.InboxPrefix != "" {
		t.Errorf("the embedded server's options %+v take settings meant for a server at url", opts)
	}
}
