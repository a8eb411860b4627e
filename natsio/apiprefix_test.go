package natsio

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
)

// apiImportConf: account HUB runs JetStream and exports its API and the stream's subject;
// account APP imports them, the API under $JS.hub.API, as an account without JetStream of
// its own reaches another's.
const apiImportConf = `
listen: "127.0.0.1:-1"
jetstream { store_dir: %q }
accounts {
  HUB: {
    jetstream: enabled
    users: [{user: hub, password: hub}]
    exports: [
      {service: "$JS.API.>", response_type: stream}
      {service: "imported.>"}
    ]
  }
  APP: {
    users: [{user: app, password: app}]
    imports: [
      {service: {account: HUB, subject: "$JS.API.>"}, to: "$JS.hub.API.>"}
      {service: {account: HUB, subject: "imported.>"}}
    ]
  }
}
`

// TestJetStreamAPIPrefix: a user of an account that imports another account's JetStream API
// creates a stream, publishes and reads through jetstream_api_prefix; without it there is
// no JetStream to talk to.
func TestJetStreamAPIPrefix(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "server.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(apiImportConf, t.TempDir())), 0o600); err != nil {
		t.Fatal(err)
	}
	opts, err := server.ProcessConfigFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	url := startServer(t, func(o *server.Options) {
		*o = *opts
		o.NoLog, o.NoSigs = true, true
	})
	c, err := Connect(testCtx(t), ServerOptions{URL: url, User: "app", Password: "app", JetStreamAPIPrefix: "$JS.hub.API"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	roundTrip(t, c, "IMPORTED", "imported.in")

	plain, err := Connect(testCtx(t), ServerOptions{URL: url, User: "app", Password: "app"})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := plain.EnsureStream(testCtx(t), StreamSpec{Name: "LOCAL", Subjects: []string{"local.in"}}); err == nil {
		t.Fatal("a stream was created without the API prefix in an account without JetStream")
	}
}
