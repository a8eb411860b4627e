package natsio

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Connection tuning. Reconnects never stop: a pipeline outlives a NATS
// restart, and the Source and Sink recover (or report) across it.
const (
	reconnectWait = 250 * time.Millisecond
	// drainTimeout bounds Close when the server is unreachable.
	drainTimeout = 10 * time.Second
)

// Conn is a connection to NATS and, when embedded, the server it owns.
type Conn struct {
	// NC is the core NATS connection.
	NC *nats.Conn
	// JS is a JetStream context on NC for stream management. Sinks use their
	// own contexts so that their acknowledgement accounting stays separate.
	JS jetstream.JetStream

	server    *server.Server // nil when external
	clientURL string
	reach     ServerOptions // URL and credentials of this connection
	log       hclog.Logger
	closed    chan struct{} // closed by the ClosedHandler
	closeOnce sync.Once
	sources   sourceConn // the sources' own connection (sourceconn.go)
}

// Connect starts the embedded server when o.URL is empty, then connects.
// A deadline on ctx bounds the first connection attempt; later reconnects
// never stop.
func Connect(ctx context.Context, o ServerOptions) (*Conn, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	c := &Conn{log: o.Logger, closed: make(chan struct{})}
	url := o.URL
	if o.Embedded() {
		ns, err := startEmbedded(o)
		if err != nil {
			return nil, err
		}
		c.server, url = ns, embeddedClientURL(ns)
	}
	c.clientURL = redactURLs(url)
	c.reach = ServerOptions{URL: url, CredentialsFile: o.CredentialsFile, User: o.User, Password: o.Password,
		Token: o.Token, NkeySeedFile: o.NkeySeedFile, InboxPrefix: o.InboxPrefix,
		TLSCAFile: o.TLSCAFile, TLSCertFile: o.TLSCertFile, TLSKeyFile: o.TLSKeyFile,
		JetStreamDomain: o.JetStreamDomain, JetStreamAPIPrefix: o.JetStreamAPIPrefix, Logger: o.Logger}
	if err := c.dial(ctx, url, o); err != nil {
		c.shutdownServer()
		return nil, err
	}
	o.Logger.Debug("connected to NATS", "server", o.String())
	return c, nil
}

// dial connects NC and JS, giving up when ctx ends.
func (c *Conn) dial(ctx context.Context, url string, o ServerOptions) error {
	nc, js, err := dialNATS(ctx, url, o, "wasmstream", c.closed)
	if err != nil {
		return err
	}
	c.NC, c.JS = nc, js
	return nil
}

// maxDialTimeout bounds one attempt to open a connection to one server,
// TCP and the NATS handshake, the first and every reconnect. nats.go holds
// the connection's lock while it reconnects: a server that accepts TCP but
// never answers (SIGSTOPped, or a half-dead machine) blocks every publish
// and request for that long on each try, so it stays short (nats.go's own
// default) even when the caller allows the first connect much longer.
const maxDialTimeout = 2 * time.Second

// dialTimeout is maxDialTimeout, or less when ctx ends sooner.
func dialTimeout(ctx context.Context) time.Duration {
	if d, ok := ctx.Deadline(); ok && time.Until(d) > 0 {
		return min(time.Until(d), maxDialTimeout)
	}
	return maxDialTimeout
}

// dialNATS connects to url as o says, naming the connection name (the
// server's monitoring shows it); closed is closed when the connection is.
func dialNATS(ctx context.Context, url string, o ServerOptions, name string, closed chan struct{}) (*nats.Conn, jetstream.JetStream, error) {
	opts, err := connectOptions(o)
	if err != nil {
		return nil, nil, err
	}
	log := o.Logger.With("connection", name)
	opts = append(opts,
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(reconnectWait),
		nats.PingInterval(pingInterval), // see outage.go: a frozen server is noticed in seconds
		nats.MaxPingsOutstanding(maxPingsOutstanding),
		nats.FlusherTimeout(flusherTimeout),
		nats.DrainTimeout(drainTimeout),
		nats.ClosedHandler(func(*nats.Conn) { close(closed) }),
		nats.DisconnectErrHandler(func(nc *nats.Conn, err error) {
			if !nc.IsClosed() && !nc.IsDraining() {
				log.Warn("disconnected from NATS, reconnecting", "error", err)
			}
		}),
		nats.ReconnectHandler(func(*nats.Conn) { log.Info("reconnected to NATS") }),
	)
	opts = append(opts, nats.Timeout(dialTimeout(ctx)))
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		if why := explainTLS(err, o); why != "" {
			return nil, nil, fmt.Errorf("%w at %s (server.url): %s: %w", ErrConnect, redactURLs(url), why, err)
		}
		return nil, nil, fmt.Errorf("%w at %s (server.url): %w", ErrConnect, redactURLs(url), err)
	}
	js, err := newJetStream(nc, o)
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("%w: JetStream: %w", ErrConnect, err)
	}
	return nc, js, nil
}

// newJetStream is a JetStream context on nc at o's domain or API prefix: every context of a
// connection must use it, or its calls go to a JetStream that is not the pipeline's.
func newJetStream(nc *nats.Conn, o ServerOptions, opts ...jetstream.JetStreamOpt) (jetstream.JetStream, error) {
	switch {
	case o.JetStreamDomain != "":
		return jetstream.NewWithDomain(nc, o.JetStreamDomain, opts...)
	case o.JetStreamAPIPrefix != "":
		return jetstream.NewWithAPIPrefix(nc, o.JetStreamAPIPrefix, opts...)
	}
	return jetstream.New(nc, opts...)
}

// connectOptions are o's authentication, TLS and inbox prefix as nats.go options.
func connectOptions(o ServerOptions) ([]nats.Option, error) {
	opts, err := authOptions(o)
	if err != nil {
		return nil, err
	}
	tlsOpt, err := tlsOption(o)
	if err != nil {
		return nil, err
	}
	if tlsOpt != nil {
		opts = append(opts, tlsOpt)
	}
	if o.InboxPrefix != "" {
		opts = append(opts, nats.CustomInboxPrefix(o.InboxPrefix))
	}
	if o.NoReconnectBuffer {
		opts = append(opts, nats.ReconnectBufSize(-1))
	}
	return opts, nil
}

func authOptions(o ServerOptions) ([]nats.Option, error) {
	switch {
	case o.NkeySeedFile != "":
		opt, err := nats.NkeyOptionFromSeed(o.NkeySeedFile)
		if err != nil {
			return nil, fmt.Errorf("%w: nkey seed %s (server.nkey_seed): %w; give a file holding a user seed (SU...)", ErrConnect, o.NkeySeedFile, err)
		}
		return []nats.Option{opt}, nil
	case o.CredentialsFile != "":
		return []nats.Option{nats.UserCredentials(o.CredentialsFile)}, nil
	case o.User != "":
		return []nats.Option{nats.UserInfo(o.User, o.Password)}, nil
	case o.Token != "":
		return []nats.Option{nats.Token(o.Token)}, nil
	}
	return nil, nil
}

// ClientURL is the URL other clients (the nats CLI, wasmstream publish) can
// use to reach the same server, with any password redacted.
func (c *Conn) ClientURL() string { return c.clientURL }

// Reach returns options that connect another client to this
// connection's server with this connection's credentials: its URL (the
// embedded server's, when embedded) and auth.
func (c *Conn) Reach() ServerOptions { return c.reach }

// MaxPayload is the largest message, headers and data (WireSize), the
// server accepts: its max_payload, as it announced it to this connection.
func (c *Conn) MaxPayload() int64 { return c.NC.MaxPayload() }

// Embedded reports whether this Conn owns an embedded server.
func (c *Conn) Embedded() bool { return c.server != nil }

// Close drains the connection (pending publishes are sent, subscriptions
// finish their buffered messages) and then shuts the embedded server down,
// so that its JetStream store is closed cleanly. It is safe to call twice.
func (c *Conn) Close() {
	c.closeOnce.Do(func() {
		c.sources.close()
		closeConn(c.NC, c.closed)
		c.shutdownServer()
	})
}

// closeConn drains nc and waits until it is closed (closed is closed).
func closeConn(nc *nats.Conn, closed chan struct{}) {
	if nc == nil {
		return
	}
	if err := nc.Drain(); err != nil {
		// Draining needs a live connection; while reconnecting, just close.
		nc.Close()
	}
	select {
	case <-closed:
	case <-time.After(drainTimeout + time.Second):
		nc.Close()
	}
}

func (c *Conn) shutdownServer() {
	if c.server == nil {
		return
	}
	c.server.Shutdown()
	c.server.WaitForShutdown()
}
