package natsio

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// embeddedReadyTimeout bounds how long Connect waits for the embedded
// server to accept clients. Recovering a large JetStream store happens
// before this wait starts (inside Start), so it only covers the listener.
const embeddedReadyTimeout = 10 * time.Second

// startEmbedded starts a JetStream-enabled nats-server in this process.
func startEmbedded(o ServerOptions) (*server.Server, error) {
	if err := checkPortFree(o.EmbeddedHost, o.EmbeddedPort); err != nil {
		return nil, err
	}
	if err := makeStoreDir(o.StoreDir); err != nil {
		return nil, err
	}
	ns, err := server.NewServer(embeddedServerOptions(o))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEmbeddedStart, err)
	}
	logs := newServerLog(o.Logger)
	ns.SetLogger(logs, o.Logger.IsDebug(), o.Logger.IsTrace())
	ns.Start()
	if err := waitEmbeddedReady(ns, logs, o); err != nil {
		ns.Shutdown()
		ns.WaitForShutdown()
		return nil, err
	}
	return ns, nil
}

// storeDirMode keeps the store, which holds every message of the
// pipeline's streams, from other local users (design.md, invariant 9).
const storeDirMode = 0o700

// makeStoreDir creates the JetStream store directory (and any missing
// parent) 0700 before the server starts. nats-server makes its own
// directories 0700 and files 0600 too, but a 0700 store made here keeps
// everything inside private whatever mode a server version gives a file.
// An existing directory keeps its mode: the engine warns about a loose one.
func makeStoreDir(dir string) error {
	if err := os.MkdirAll(dir, storeDirMode); err != nil {
		return fmt.Errorf("%w: JetStream store %s: %w", ErrEmbeddedStart, dir, err)
	}
	return nil
}

func embeddedServerOptions(o ServerOptions) *server.Options {
	return &server.Options{
		ServerName:    o.ServerName,
		Host:          o.EmbeddedHost,
		Port:          o.EmbeddedPort,
		JetStream:     true,
		StoreDir:      o.StoreDir,
		NoSigs:        true, // the process owning the server handles signals
		Username:      o.User,
		Password:      o.Password,
		Authorization: o.Token,
		MaxPayload:    int32(o.MaxPayload), // 0: the server's default
		Nkeys:         serverNkeys(o.EmbeddedUsers),
	}
}

// waitEmbeddedReady reports a start failure the server only logged (a
// listener error, a JetStream store that cannot open) as an error.
func waitEmbeddedReady(ns *server.Server, logs *serverLog, o ServerOptions) error {
	if line := logs.fatalLine(); line != "" {
		return fmt.Errorf("%w (store %s, port %d): %s", ErrEmbeddedStart, o.StoreDir, o.EmbeddedPort, line)
	}
	if !ns.ReadyForConnections(embeddedReadyTimeout) {
		line := logs.fatalLine()
		return fmt.Errorf("%w: not accepting clients on %s:%d after %s %s",
			ErrEmbeddedStart, o.EmbeddedHost, o.EmbeddedPort, embeddedReadyTimeout, line)
	}
	if !ns.JetStreamEnabled() {
		return fmt.Errorf("%w: JetStream is not enabled (store %s): %s", ErrEmbeddedStart, o.StoreDir, logs.fatalLine())
	}
	return nil
}

// checkPortFree fails early, with the config field to change, when the port
// is taken: nats-server would otherwise only log it and time out.
func checkPortFree(host string, port int) error {
	if port == RandomPort {
		return nil
	}
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	l, err := net.Listen("tcp", addr)
	if err == nil {
		return l.Close()
	}
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("%w: the embedded NATS server cannot listen on %s because another process uses port %d; "+
			"stop that process, set server.embedded_port to a free port, or set server.url to use that server", ErrPortInUse, addr, port)
	}
	return fmt.Errorf("%w: cannot listen on %s (server.embedded_host / server.embedded_port): %w", ErrEmbeddedStart, addr, err)
}

// embeddedClientURL is the URL to reach the embedded server from this
// machine: a wildcard listen address (0.0.0.0, ::) is not one to dial.
func embeddedClientURL(ns *server.Server) string {
	u := ns.ClientURL()
	addr := ns.Addr()
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return u
	}
	loopback := "127.0.0.1"
	if tcp.IP.To4() == nil {
		loopback = "::1"
	}
	return "nats://" + net.JoinHostPort(loopback, strconv.Itoa(tcp.Port))
}
