package clustertest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ClientOptions are the connection settings of Conn: pings every second,
// so that a client on a frozen node notices within about 2 s and moves on
// (with nats.go's default 2-minute pings it hung for more than 90 s, design
// §4), reconnects that never stop, and no "EOF on connection" lines for
// the disconnects the tests cause on purpose.
func ClientOptions() []nats.Option {
	return []nats.Option{
		nats.ErrorHandler(quietOnEOF),
		nats.PingInterval(time.Second),
		nats.MaxPingsOutstanding(2),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(100 * time.Millisecond),
		nats.Timeout(2 * time.Second),
	}
}

// Conn connects to the cluster with ClientOptions followed by opts; the
// test's cleanup closes the connection.
func (c *Cluster) Conn(t testing.TB, opts ...nats.Option) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(c.URLs(), append(ClientOptions(), opts...)...)
	if err != nil {
		t.Fatalf("clustertest: connect to %s: %v", c.URLs(), err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// ConnTo connects to the cluster's node at url alone, with ClientOptions
// followed by opts; the test's cleanup closes the connection.
func (c *Cluster) ConnTo(t testing.TB, url string, opts ...nats.Option) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(url, append(ClientOptions(), append(opts, nats.DontRandomize())...)...)
	if err != nil {
		t.Fatalf("clustertest: connect to %s: %v", url, err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// JetStream is a JetStream context on a new Conn.
func (c *Cluster) JetStream(t testing.TB, opts ...nats.Option) jetstream.JetStream {
	t.Helper()
	js, err := jetstream.New(c.Conn(t, opts...))
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// quietOnEOF prints asynchronous errors as nats.go's default handler does,
// except the EOF of a killed node.
func quietOnEOF(_ *nats.Conn, sub *nats.Subscription, err error) {
	if errors.Is(err, io.EOF) {
		return
	}
	if sub != nil {
		fmt.Fprintf(os.Stderr, "nats: %v on subscription %q\n", err, sub.Subject)
		return
	}
	fmt.Fprintf(os.Stderr, "nats: %v\n", err)
}
