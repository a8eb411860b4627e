package lease

import (
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestAPIPrefixFollowsTheJetStreamContext: leader reads go to the API of
// the JetStream context they are given: a domain's, an account import's
// prefix, or the default. They always went to "$JS.API.", which a
// pipeline configured with server.jetstream_domain or
// jetstream_api_prefix does not reach.
func TestAPIPrefixFollowsTheJetStreamContext(t *testing.T) {
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	t.Cleanup(ns.Shutdown)
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	for want, mk := range map[string]func() (jetstream.JetStream, error){
		"$JS.API.":     func() (jetstream.JetStream, error) { return jetstream.New(nc) },
		"$JS.hub.API.": func() (jetstream.JetStream, error) { return jetstream.NewWithDomain(nc, "hub") },
		"js.remote.":   func() (jetstream.JetStream, error) { return jetstream.NewWithAPIPrefix(nc, "js.remote") },
		"js.trailing.": func() (jetstream.JetStream, error) { return jetstream.NewWithAPIPrefix(nc, "js.trailing.") },
	} {
		js, err := mk()
		if err != nil {
			t.Fatal(err)
		}
		if got := apiPrefix(js); got != want {
			t.Errorf("apiPrefix = %q, want %q", got, want)
		}
	}
}
