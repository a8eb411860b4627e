package natsio

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/hashicorp/go-hclog"
)

// Defaults for the embedded server.
const (
	DefaultEmbeddedHost = "127.0.0.1"
	DefaultEmbeddedPort = 4222
	// RandomPort asks the embedded server for any free port (tests).
	RandomPort = -1
	// DefaultServerName names an embedded server given no ServerName.
	DefaultServerName = "wasmstream-embedded"
	// DefaultMaxPayload is nats-server's default max_payload (1 MiB): the
	// largest message, headers and data, it accepts from a client.
	DefaultMaxPayload = 1 << 20
	// MaxMaxPayload is the largest max_payload nats-server allows: its
	// default max_pending, which a message must fit in.
	MaxMaxPayload = 64 << 20
)

// ServerOptions says where NATS is. URL == "" starts an embedded server.
type ServerOptions struct {
	// URL of an external server, e.g. nats://host:4222 (several may be given
	// comma-separated). Empty means: start an embedded server in-process.
	URL string
	// CredentialsFile is an optional .creds file (JWT + nkey seed).
	// Only for an external server.
	CredentialsFile string
	// User and Password are optional. With an embedded server they become
	// the only account allowed to connect.
	User, Password string
	// Token is optional. With an embedded server it becomes the only token
	// allowed to connect.
	Token string
	// NkeySeedFile is an nkey user seed this client signs the server's
	// challenge with (the seed never leaves this process).
	NkeySeedFile string
	// InboxPrefix replaces nats.go's "_INBOX" for this client's replies: a
	// user whose permissions allow subscribing only to its own prefix
	// cannot read the replies other users get.
	InboxPrefix string
	// NoReconnectBuffer makes a publish fail at once while the connection
	// is down instead of waiting in nats.go's reconnect buffer, which sends
	// it whenever the connection is back, past any check the publisher
	// made: a cluster worker's part must not publish after its tasks may
	// have moved. The Sink sends such a publish again after the outage,
	// through SinkOptions.BeforeResend.
	NoReconnectBuffer bool
	// TLSCAFile is a PEM file of the CAs that may sign the server's
	// certificate, replacing the system's roots. TLSCertFile and TLSKeyFile,
	// both or neither, are the client certificate a server verifying clients
	// (mutual TLS) asks for. Setting any of them makes the connection use
	// TLS. Only for an external server.
	TLSCAFile, TLSCertFile, TLSKeyFile string
	// JetStreamDomain or JetStreamAPIPrefix, at most one, say where the
	// JetStream API is: "$JS.<domain>.API" of a server in another domain
	// (a leaf node's hub), or the prefix an account imports it under.
	// Every JetStream context of the connection uses it.
	JetStreamDomain, JetStreamAPIPrefix string
	// EmbeddedUsers, when not empty, are the only users the embedded server
	// lets connect: nkey users, each with its own permissions.
	EmbeddedUsers []EmbeddedUser
	// EmbeddedHost is the embedded server's listen address; default
	// "127.0.0.1" so that it is not reachable from other machines.
	EmbeddedHost string
	// EmbeddedPort is the embedded server's client port; 0 means the
	// default 4222 and RandomPort (-1) any free port.
	EmbeddedPort int
	// StoreDir is the embedded server's JetStream store, e.g.
	// <data_dir>/jetstream. Required when embedded.
	StoreDir string
	// ServerName is the embedded server's name: the server_name of its
	// INFO, which a client reads as nats.Conn.ConnectedServerName. The
	// engine names it after the pipeline and its data dir, so that a
	// client can tell whose server listens on a port. Default
	// DefaultServerName; a name may not contain spaces.
	ServerName string
	// MaxPayload is the embedded server's max_payload in bytes; 0 means
	// DefaultMaxPayload. An external server's own configuration decides its
	// limit, which Conn.MaxPayload reports.
	MaxPayload int
	// Logger receives this package's logs; the embedded server's own logs
	// go to its "nats-server" sub-logger. Nil discards them.
	Logger hclog.Logger
}

// Embedded reports whether these options start an embedded server.
func (o ServerOptions) Embedded() bool { return o.URL == "" }

// withDefaults returns a copy with every unset default filled in.
func (o ServerOptions) withDefaults() ServerOptions {
	if o.EmbeddedHost == "" {
		o.EmbeddedHost = DefaultEmbeddedHost
	}
	if o.EmbeddedPort == 0 {
		o.EmbeddedPort = DefaultEmbeddedPort
	}
	if o.ServerName == "" {
		o.ServerName = DefaultServerName
	}
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	return o
}

// Validate reports options that cannot work, naming the config field to fix.
func (o ServerOptions) Validate() error {
	if o.Password != "" && o.User == "" {
		return fmt.Errorf("%w: server.password is set without server.user", ErrInvalidOptions)
	}
	if n := o.authMethods(); n > 1 {
		return fmt.Errorf("%w: set only one of server.credentials, server.user/password, server.token and server.nkey_seed (%d are set)", ErrInvalidOptions, n)
	}
	if o.JetStreamDomain != "" && o.JetStreamAPIPrefix != "" {
		return fmt.Errorf("%w: set only one of server.jetstream_domain and server.jetstream_api_prefix", ErrInvalidOptions)
	}
	if (o.TLSCertFile == "") != (o.TLSKeyFile == "") {
		return fmt.Errorf("%w: server.tls.cert_file and server.tls.key_file go together (a client certificate and its key); set both or neither", ErrInvalidOptions)
	}
	if o.Embedded() {
		return o.validateEmbedded()
	}
	return nil
}

func (o ServerOptions) validateEmbedded() error {
	if len(o.EmbeddedUsers) > 0 && (o.User != "" || o.Token != "") {
		return fmt.Errorf("%w: server.user/password or server.token replace the embedded server's generated nkey users; set either, not both", ErrInvalidOptions)
	}
	if o.CredentialsFile != "" {
		return fmt.Errorf("%w: server.credentials needs server.url; the embedded server supports only server.user/password or server.token", ErrInvalidOptions)
	}
	if o.TLSCAFile != "" || o.TLSCertFile != "" || o.JetStreamDomain != "" || o.JetStreamAPIPrefix != "" {
		return fmt.Errorf("%w: server.tls, server.jetstream_domain and server.jetstream_api_prefix need server.url; the embedded server listens without TLS in no domain", ErrInvalidOptions)
	}
	if o.StoreDir == "" {
		return fmt.Errorf("%w: the embedded server needs a JetStream store directory (the data directory)", ErrInvalidOptions)
	}
	if o.EmbeddedPort < RandomPort || o.EmbeddedPort > 65535 {
		return fmt.Errorf("%w: server.embedded_port %d is not a port (use 1-65535, or -1 for any free port)", ErrInvalidOptions, o.EmbeddedPort)
	}
	if o.MaxPayload < 0 || o.MaxPayload > MaxMaxPayload {
		return fmt.Errorf("%w: server.max_payload %d must be 1 to %d bytes (0: the default, %d)", ErrInvalidOptions, o.MaxPayload, MaxMaxPayload, DefaultMaxPayload)
	}
	return nil
}

func (o ServerOptions) authMethods() int {
	n := 0
	for _, set := range []bool{o.CredentialsFile != "", o.User != "", o.Token != "", o.NkeySeedFile != ""} {
		if set {
			n++
		}
	}
	return n
}

// String prints the options with secrets redacted, for logs and the
// recorded effective configuration.
func (o ServerOptions) String() string {
	o = o.withDefaults()
	if o.Embedded() {
		return fmt.Sprintf("embedded nats-server on %s:%d, store %s%s%s",
			o.EmbeddedHost, o.EmbeddedPort, o.StoreDir, o.maxPayloadString(), o.authString())
	}
	return fmt.Sprintf("nats server %s%s%s%s", redactURLs(o.URL), o.authString(), o.tlsString(), o.jetStreamString())
}

func (o ServerOptions) tlsString() string {
	s := ""
	if o.TLSCAFile != "" {
		s += ", tls ca " + o.TLSCAFile
	}
	if o.TLSCertFile != "" {
		s += ", tls cert " + o.TLSCertFile
	}
	return s
}

func (o ServerOptions) jetStreamString() string {
	switch {
	case o.JetStreamDomain != "":
		return ", jetstream domain " + o.JetStreamDomain
	case o.JetStreamAPIPrefix != "":
		return ", jetstream api prefix " + o.JetStreamAPIPrefix
	}
	return ""
}

func (o ServerOptions) maxPayloadString() string {
	if o.MaxPayload == 0 {
		return ""
	}
	return fmt.Sprintf(", max_payload %d", o.MaxPayload)
}

func (o ServerOptions) authString() string {
	switch {
	case o.CredentialsFile != "":
		return ", credentials " + o.CredentialsFile
	case o.User != "":
		return ", user " + o.User
	case o.Token != "":
		return ", token <redacted>"
	case o.NkeySeedFile != "":
		return ", nkey " + o.NkeySeedFile
	}
	return ""
}

// redactURLs hides passwords in a comma-separated URL list.
func redactURLs(list string) string {
	parts := strings.Split(list, ",")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if u, err := url.Parse(p); err == nil && u.User != nil {
			p = redactURL(u)
		}
		parts[i] = p
	}
	return strings.Join(parts, ",")
}

// redactURL hides the password of user:password@ and the whole of token@
// (a lone user part is a token in NATS URLs).
func redactURL(u *url.URL) string {
	if _, hasPassword := u.User.Password(); hasPassword {
		return u.Redacted()
	}
	u.User = url.User("xxxxx")
	return u.String()
}
