package natsio

import (
	"errors"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestNkeySeedUser: an nkey user of an external server (userSeed: embedded_auth_test.go)
// connects with its seed and no other seed gets in.
func TestNkeySeedUser(t *testing.T) {
	seed, pub := userSeed(t)
	stranger, _ := userSeed(t)
	url := startServer(t, func(o *server.Options) { o.Nkeys = []*server.NkeyUser{{Nkey: pub}} })

	c, err := Connect(testCtx(t), ServerOptions{URL: url, NkeySeedFile: seed})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	roundTrip(t, c, "NKEY", "nkey.in")

	err = connectErr(t, ServerOptions{URL: url, NkeySeedFile: stranger})
	if !errors.Is(err, ErrConnect) || !errors.Is(err, nats.ErrAuthorization) {
		t.Fatalf("connecting with another user's seed: %v; want ErrConnect and an authorization violation", err)
	}
}

// Every JetStream context of a connection with JetStreamDomain sends its API calls to
// $JS.<domain>.API: through the server's own domain they work, through another they find no
// JetStream. A Sink has none: it publishes to stream subjects, which no domain prefixes.
func TestJetStreamDomain(t *testing.T) {
	url := startServer(t, func(o *server.Options) { o.JetStreamDomain = "hub" })
	c, err := Connect(testCtx(t), ServerOptions{URL: url, JetStreamDomain: "hub"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sourcesJS, _, err := c.sourceJS(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	for what, js := range map[string]jetstream.JetStream{"connection": c.JS, "sources' connection": sourcesJS} {
		if got := js.Options().Domain; got != "hub" {
			t.Errorf("the %s's JetStream domain is %q, want hub", what, got)
		}
	}
	roundTrip(t, c, "HUB", "hub.in")

	elsewhere, err := Connect(testCtx(t), ServerOptions{URL: url, JetStreamDomain: "leaf"})
	if err != nil {
		t.Fatal(err)
	}
	defer elsewhere.Close()
	if _, err := elsewhere.EnsureStream(testCtx(t), StreamSpec{Name: "LEAF", Subjects: []string{"leaf.in"}}); err == nil {
		t.Fatal("a stream was created through the JetStream domain leaf, which no server has")
	}
}

func TestNewJetStreamAddress(t *testing.T) {
	url := startServer(t, func(*server.Options) {})
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	for _, tc := range []struct{ domain, prefix string }{{"", ""}, {"hub", ""}, {"", "$JS.acct-a.API"}} {
		js, err := newJetStream(nc, ServerOptions{JetStreamDomain: tc.domain, JetStreamAPIPrefix: tc.prefix})
		if err != nil {
			t.Fatal(err)
		}
		if got := js.Options(); got.Domain != tc.domain || got.APIPrefix != tc.prefix {
			t.Errorf("domain %q, prefix %q: the JetStream context has domain %q, prefix %q", tc.domain, tc.prefix, got.Domain, got.APIPrefix)
		}
	}
}

func TestDomainAndPrefixAreAlternatives(t *testing.T) {
	err := connectErr(t, ServerOptions{URL: "nats://127.0.0.1:1", JetStreamDomain: "a", JetStreamAPIPrefix: "$JS.b.API"})
	if !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), "jetstream_domain") {
		t.Fatalf("%v; want ErrInvalidOptions naming jetstream_domain", err)
	}
}
