package natsio

import (
	"errors"
	"strings"
	"testing"
)

func TestServerOptionsValidateConnectionSettings(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    ServerOptions
		want string // "" = valid; else a substring of the error
	}{
		{"tls", ServerOptions{URL: "tls://h:4222", TLSCAFile: "ca.pem", TLSCertFile: "c.pem", TLSKeyFile: "k.pem"}, ""},
		{"domain", ServerOptions{URL: "nats://h:4222", JetStreamDomain: "hub"}, ""},
		{"cert without key", ServerOptions{URL: "nats://h:4222", TLSCertFile: "c.pem"}, "go together"},
		{"key without cert", ServerOptions{URL: "nats://h:4222", TLSKeyFile: "k.pem"}, "go together"},
		{"domain and prefix", ServerOptions{URL: "nats://h:4222", JetStreamDomain: "a", JetStreamAPIPrefix: "$JS.b.API"}, "only one of server.jetstream_domain"},
		{"embedded tls", ServerOptions{StoreDir: "/x", TLSCAFile: "ca.pem"}, "need server.url"},
		{"embedded domain", ServerOptions{StoreDir: "/x", JetStreamDomain: "hub"}, "need server.url"},
		{"nkey and token", ServerOptions{URL: "nats://h", NkeySeedFile: "u.nk", Token: "t"}, "server.nkey_seed"},
	} {
		err := tc.o.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: Validate() = %v, want nil", tc.name, err)
		case tc.want != "" && (!errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: Validate() = %v, want ErrInvalidOptions containing %q", tc.name, err, tc.want)
		}
	}
}

func TestServerOptionsStringShowsTLSAndDomain(t *testing.T) {
	o := ServerOptions{URL: "tls://h:4222", TLSCAFile: "/ca.pem", TLSCertFile: "/c.pem", TLSKeyFile: "/k.pem", JetStreamDomain: "hub"}
	if got, want := o.String(), "nats server tls://h:4222, tls ca /ca.pem, tls cert /c.pem, jetstream domain hub"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
}
