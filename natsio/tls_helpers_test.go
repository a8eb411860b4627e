package natsio

import (
	"testing"

	"github.com/nats-io/nats-server/v2/server"
)

// startServer runs a JetStream nats-server on a random 127.0.0.1 port with a temp store,
// configured further by edit (TLS, users, a domain), and returns its client URL.
func startServer(t testing.TB, edit func(*server.Options)) string {
	t.Helper()
	opts := &server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true}
	edit(opts)
	ns, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(testTimeout) {
		t.Fatalf("nats-server not ready after %s", testTimeout)
	}
	t.Cleanup(func() {
		ns.Shutdown()
		ns.WaitForShutdown()
	})
	return ns.ClientURL()
}
