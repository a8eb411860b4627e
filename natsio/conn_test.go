package natsio

import (
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
)

func TestEmbeddedRestartKeepsStreamMessages(t *testing.T) {
	dir := t.TempDir()
	c := embeddedAt(t, dir, RandomPort)
	if !c.Embedded() || !strings.HasPrefix(c.ClientURL(), "nats://127.0.0.1:") {
		t.Fatalf("Embedded() = %v, ClientURL() = %q", c.Embedded(), c.ClientURL())
	}
	ensureStream(t, c, "ORDERS", "orders.>")
	publishMany(t, c, "orders.new", 10)
	c.Close()
	c.Close() // a second Close is harmless

	c2 := embeddedAt(t, dir, RandomPort)
	info := ensureStream(t, c2, "ORDERS", "orders.>")
	if info.State.Msgs != 10 {
		t.Fatalf("after restart the stream has %d messages, want 10", info.State.Msgs)
	}
	src, err := c2.OpenSource(testCtx(t), SourceSpec{Stream: "ORDERS"})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	got := fetchN(t, src, 10)
	if string(got[9].Data) != "orders.new-9" || got[9].Sequence != 10 {
		t.Fatalf("last message after restart = seq %d %q", got[9].Sequence, got[9].Data)
	}
}

func TestEmbeddedPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port

	_, err = Connect(testCtx(t), ServerOptions{StoreDir: t.TempDir(), EmbeddedPort: port})
	if !errors.Is(err, ErrPortInUse) {
		t.Fatalf("err = %v, want ErrPortInUse", err)
	}
	for _, want := range []string{strconv.Itoa(port), "server.embedded_port"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestEmbeddedStoreUnusable(t *testing.T) {
	file := t.TempDir() + "/not-a-dir"
	if err := writeFile(file); err != nil {
		t.Fatal(err)
	}
	_, err := Connect(testCtx(t), ServerOptions{StoreDir: file + "/jetstream", EmbeddedPort: RandomPort})
	if !errors.Is(err, ErrEmbeddedStart) {
		t.Fatalf("err = %v, want ErrEmbeddedStart", err)
	}
}

func TestExternalConnection(t *testing.T) {
	srv := embedded(t)
	c := external(t, srv.ClientURL())
	if c.Embedded() {
		t.Fatal("a URL connection reports Embedded")
	}
	if c.ClientURL() != srv.ClientURL() {
		t.Fatalf("ClientURL() = %q, want %q", c.ClientURL(), srv.ClientURL())
	}
	ensureStream(t, c, "S", "s.>")
	if seq := publishSync(t, c, "s.x", "hello"); seq != 1 {
		t.Fatalf("seq = %d", seq)
	}
}

func TestEmbeddedWildcardHostClientURL(t *testing.T) {
	srv, err := Connect(testCtx(t), ServerOptions{StoreDir: t.TempDir(), EmbeddedPort: RandomPort, EmbeddedHost: "0.0.0.0"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if u := srv.ClientURL(); strings.Contains(u, "0.0.0.0") || strings.Contains(u, "[::]") {
		t.Fatalf("ClientURL() = %q, a wildcard address", u)
	}
	external(t, srv.ClientURL())
}

func TestConnectUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // now nothing listens there
	_, err = Connect(testCtx(t), ServerOptions{URL: "nats://" + addr})
	if !errors.Is(err, ErrConnect) || !strings.Contains(err.Error(), addr) {
		t.Fatalf("err = %v, want ErrConnect naming %s", err, addr)
	}
}

func TestEmbeddedUserPassword(t *testing.T) {
	srv, err := Connect(testCtx(t), ServerOptions{StoreDir: t.TempDir(), EmbeddedPort: RandomPort, User: "app", Password: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if _, err := Connect(testCtx(t), ServerOptions{URL: srv.ClientURL()}); !errors.Is(err, ErrConnect) {
		t.Fatalf("anonymous connect: err = %v, want ErrConnect", err)
	}
	if _, err := Connect(testCtx(t), ServerOptions{URL: srv.ClientURL(), User: "app", Password: "wrong"}); !errors.Is(err, ErrConnect) {
		t.Fatalf("wrong password: err = %v, want ErrConnect", err)
	}
	c, err := Connect(testCtx(t), ServerOptions{URL: srv.ClientURL(), User: "app", Password: "s3cret"})
	if err != nil {
		t.Fatalf("right password: %v", err)
	}
	c.Close()
}

func TestEmbeddedToken(t *testing.T) {
	srv, err := Connect(testCtx(t), ServerOptions{StoreDir: t.TempDir(), EmbeddedPort: RandomPort, Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if _, err := Connect(testCtx(t), ServerOptions{URL: srv.ClientURL(), Token: "bad"}); !errors.Is(err, ErrConnect) {
		t.Fatalf("bad token: err = %v, want ErrConnect", err)
	}
	c, err := Connect(testCtx(t), ServerOptions{URL: srv.ClientURL(), Token: "tok"})
	if err != nil {
		t.Fatalf("right token: %v", err)
	}
	c.Close()
}

// The embedded server carries ServerOptions.ServerName (DefaultServerName
// by default), which is what a client sees of it; the name is no part of
// the store: a store written under one name reopens under another with
// its streams (a data dir from before servers were named after their
// pipeline).
func TestEmbeddedServerName(t *testing.T) {
	dir := t.TempDir()
	c := embeddedAt(t, dir, RandomPort)
	if got := external(t, c.ClientURL()).NC.ConnectedServerName(); got != DefaultServerName {
		t.Fatalf("unnamed server: a client sees %q, want %q", got, DefaultServerName)
	}
	ensureStream(t, c, "ORDERS", "orders.>")
	publishMany(t, c, "orders.new", 3)
	c.Close()

	c2, err := Connect(testCtx(t), ServerOptions{StoreDir: dir, EmbeddedPort: RandomPort, ServerName: "wasmstream-p-0123456789ab"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c2.Close)
	if got := external(t, c2.ClientURL()).NC.ConnectedServerName(); got != "wasmstream-p-0123456789ab" {
		t.Fatalf("a client sees %q, want the name given", got)
	}
	if info := ensureStream(t, c2, "ORDERS", "orders.>"); info.State.Msgs != 3 {
		t.Fatalf("under another name the stream has %d messages, want 3", info.State.Msgs)
	}
}
