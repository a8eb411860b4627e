package natsio

import (
	"errors"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/wasmstream/wasmstream/internal/testutil/tlstest"
)

// tlsServer starts a JetStream server with certs' server certificate; with verifyClients it
// also demands a client certificate signed by certs' CA (mutual TLS).
func tlsServer(t *testing.T, certs tlstest.Files, verifyClients bool) string {
	t.Helper()
	return startServer(t, func(o *server.Options) {
		o.TLSConfig = certs.ServerConfig(t, verifyClients)
		o.TLSVerify = verifyClients
	})
}

func connectErr(t *testing.T, o ServerOptions) error {
	t.Helper()
	c, err := Connect(testCtx(t), o)
	if err == nil {
		c.Close()
	}
	return err
}

// wantConnectError checks that err is ErrConnect and says every one of the phrases.
func wantConnectError(t *testing.T, err error, phrases ...string) {
	t.Helper()
	if !errors.Is(err, ErrConnect) {
		t.Fatalf("got %v, want ErrConnect", err)
	}
	for _, p := range phrases {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not say %q", err, p)
		}
	}
}

// A private CA in server.tls.ca_file is trusted; through it a stream is created, written and
// read, so the whole JetStream path runs over TLS.
func TestTLSWithCAFile(t *testing.T) {
	certs := tlstest.Generate(t)
	url := tlsServer(t, certs, false)
	c, err := Connect(testCtx(t), ServerOptions{URL: url, TLSCAFile: certs.CA})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !c.NC.TLSRequired() {
		t.Fatal("connected without TLS")
	}
	roundTrip(t, c, "TLS", "tls.in")
}

func TestTLSWrongCA(t *testing.T) {
	certs := tlstest.Generate(t)
	url := tlsServer(t, certs, false)
	other := tlstest.OtherCA(t)
	err := connectErr(t, ServerOptions{URL: url, TLSCAFile: other})
	wantConnectError(t, err, "the server's certificate is not signed by server.tls.ca_file", other)
}

func TestTLSWithoutCAUsesSystemRoots(t *testing.T) {
	certs := tlstest.Generate(t)
	url := tlsServer(t, certs, false)
	err := connectErr(t, ServerOptions{URL: strings.Replace(url, "nats://", "tls://", 1)})
	wantConnectError(t, err, "not signed by a CA this machine trusts", "set server.tls.ca_file")
}

func TestMutualTLS(t *testing.T) {
	certs := tlstest.Generate(t)
	url := tlsServer(t, certs, true)
	c, err := Connect(testCtx(t), ServerOptions{URL: url, TLSCAFile: certs.CA, TLSCertFile: certs.ClientCert, TLSKeyFile: certs.ClientKey})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	roundTrip(t, c, "MTLS", "mtls.in")
}

func TestMutualTLSWithoutClientCertificate(t *testing.T) {
	certs := tlstest.Generate(t)
	url := tlsServer(t, certs, true)
	err := connectErr(t, ServerOptions{URL: url, TLSCAFile: certs.CA})
	wantConnectError(t, err, "the server requires a client certificate", "server.tls.cert_file")
}

func TestTLSBadFilesNameTheSetting(t *testing.T) {
	certs := tlstest.Generate(t)
	for _, tc := range []struct {
		name string
		o    ServerOptions
		want string
	}{
		{"CA is not PEM", ServerOptions{TLSCAFile: certs.ClientKey}, "server.tls.ca_file"},
		{"key of another certificate", ServerOptions{TLSCertFile: certs.ClientCert, TLSKeyFile: certs.ServerKey}, "server.tls.cert_file"},
		{"cert without key", ServerOptions{TLSCertFile: certs.ClientCert}, "server.tls.key_file"},
	} {
		tc.o.URL = "nats://127.0.0.1:1"
		err := connectErr(t, tc.o)
		if !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want ErrInvalidOptions naming %s", tc.name, err, tc.want)
		}
	}
}

// A client certificate from a CA the server does not trust is refused, and the error names it.
func TestMutualTLSWithUntrustedClientCertificate(t *testing.T) {
	certs, stranger := tlstest.Generate(t), tlstest.Generate(t)
	url := tlsServer(t, certs, true)
	err := connectErr(t, ServerOptions{URL: url, TLSCAFile: certs.CA, TLSCertFile: stranger.ClientCert, TLSKeyFile: stranger.ClientKey})
	wantConnectError(t, err, "the server refused the client certificate server.tls.cert_file", stranger.ClientCert)
}
