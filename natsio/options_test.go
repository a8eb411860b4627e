package natsio

import (
	"errors"
	"strings"
	"testing"
)

func TestServerOptionsValidate(t *testing.T) {
	tests := []struct {
		name string
		o    ServerOptions
		want string // "" = valid; else a substring of the error
	}{
		{"embedded", ServerOptions{StoreDir: "/x"}, ""},
		{"embedded random port", ServerOptions{StoreDir: "/x", EmbeddedPort: -1}, ""},
		{"external", ServerOptions{URL: "nats://h:4222"}, ""},
		{"external creds", ServerOptions{URL: "nats://h:4222", CredentialsFile: "a.creds"}, ""},
		{"embedded without store", ServerOptions{}, "store directory"},
		{"embedded creds", ServerOptions{StoreDir: "/x", CredentialsFile: "a.creds"}, "server.credentials needs server.url"},
		{"bad port", ServerOptions{StoreDir: "/x", EmbeddedPort: 70000}, "server.embedded_port 70000"},
		{"negative port", ServerOptions{StoreDir: "/x", EmbeddedPort: -2}, "server.embedded_port -2"},
		{"password without user", ServerOptions{URL: "nats://h", Password: "p"}, "without server.user"},
		{"two auth methods", ServerOptions{URL: "nats://h", User: "u", Token: "t"}, "only one of"},
		{"max payload", ServerOptions{StoreDir: "/x", MaxPayload: 64 << 10}, ""},
		{"max payload too large", ServerOptions{StoreDir: "/x", MaxPayload: MaxMaxPayload + 1}, "server.max_payload 67108865"},
		{"negative max payload", ServerOptions{StoreDir: "/x", MaxPayload: -1}, "server.max_payload -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.o.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate() = %v, want ErrInvalidOptions containing %q", err, tt.want)
			}
		})
	}
}

func TestServerOptionsStringRedacts(t *testing.T) {
	tests := []struct {
		o          ServerOptions
		want, hide string
	}{
		{ServerOptions{StoreDir: "/d"}, "embedded nats-server on 127.0.0.1:4222, store /d", ""},
		{ServerOptions{StoreDir: "/d", MaxPayload: 65536}, "store /d, max_payload 65536", ""},
		{ServerOptions{URL: "nats://u:pw@h:4222"}, "nats://u:xxxxx@h:4222", "pw"},
		{ServerOptions{URL: "nats://tok@h:4222"}, "nats://xxxxx@h:4222", "tok"},
		{ServerOptions{URL: "nats://a:1, nats://b:2", Token: "secret"}, "nats://a:1,nats://b:2, token <redacted>", "secret"},
		{ServerOptions{URL: "nats://h", User: "app", Password: "pw"}, "user app", "pw"},
	}
	for _, tt := range tests {
		s := tt.o.String()
		if !strings.Contains(s, tt.want) || (tt.hide != "" && strings.Contains(s, tt.hide)) {
			t.Errorf("String() = %q, want it to contain %q and not %q", s, tt.want, tt.hide)
		}
	}
}
