package config

import (
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// natsSchemes are the URL schemes nats.go dials.
var natsSchemes = map[string]bool{"nats": true, "tls": true, "ws": true, "wss": true}

// decodeServer reads the server block. Empty strings mean "not set", so that a printed
// effective config can be read back.
func (d *decoder) decodeServer(b *hcl.Block) Server {
	a, blocks := d.body(b, serverSchema, "server")
	s := Server{
		URL:                a.strOr("url", ""),
		User:               a.strOr("user", ""),
		Password:           a.strOr("password", ""),
		Token:              a.strOr("token", ""),
		EmbeddedPort:       int(a.integer("embedded_port", 1, maxPort, DefaultEmbeddedPort)),
		MaxPayload:         int(a.integer("max_payload", MinMaxPayload, MaxMaxPayload, 0)),
		OutageBudget:       outageBudget(a),
		Credentials:        d.pathAttr(a, "credentials"),
		NkeySeed:           d.pathAttr(a, "nkey_seed"),
		JetStreamDomain:    a.strOr("jetstream_domain", ""),
		JetStreamAPIPrefix: a.strOr("jetstream_api_prefix", ""),
		InboxPrefix:        a.strOr("inbox_prefix", ""),
		Context:            a.strOr("context", ""),
	}
	remote := s.URL != "" || s.Context != ""
	tlsBlock := d.decodeTLS(blocks, &s, remote)
	checkAuth(a, s)
	if remote {
		checkRemote(a, s)
	}
	if s.Context != "" {
		d.applyContext(a, &s)
	}
	checkEmbedded(a, s, tlsBlock)
	return dropUnused(s)
}

// checkRemote checks the block's own settings for a server at url or a context's: the url, the
// nkey seed's file, the JetStream address and the inbox prefix.
func checkRemote(a *attrs, s Server) {
	if s.URL != "" && !validServerURLs(s.URL) {
		a.errorf("url", "%q is not a NATS URL; write e.g. \"nats://host:4222\", several separated by commas", redactURLs(s.URL))
	}
	if s.NkeySeed != "" {
		if err := checkNkeySeed(s.NkeySeed); err != nil {
			a.errorf("nkey_seed", "%v", err)
		}
	}
	checkJetStream(a, s)
}

// dropUnused clears what checkEmbedded warned about so that the effective config shows what
// is used: the embedded server runs with its own nkey users and without TLS, and only it takes
// max_payload.
func dropUnused(s Server) Server {
	if s.URL != "" {
		s.MaxPayload = 0
		return s
	}
	s.Credentials, s.User, s.Password, s.Token, s.NkeySeed = "", "", "", "", ""
	s.TLS, s.JetStreamDomain, s.JetStreamAPIPrefix, s.InboxPrefix = TLS{}, "", "", ""
	return s
}

// outageBudget reads outage_budget, from a second to an hour.
func outageBudget(a *attrs) time.Duration {
	return a.durationIn("outage_budget", minOutageBudget, maxOutageBudget, DefaultOutageBudget,
		"it is how long NATS may be unreachable before the pipeline stops")
}

// validServerURLs accepts what nats.go accepts: comma-separated URLs, the scheme optional.
func validServerURLs(list string) bool {
	for _, raw := range strings.Split(list, ",") {
		u, err := parseServerURL(raw)
		if err != nil || !natsSchemes[u.Scheme] || u.Host == "" {
			return false
		}
	}
	return true
}

func parseServerURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if !strings.Contains(raw, "://") {
		raw = "nats://" + raw
	}
	return url.Parse(raw)
}

// redactURLs hides passwords written in URLs, for messages and the printed config.
func redactURLs(list string) string {
	parts := strings.Split(list, ",")
	for i, raw := range parts {
		if u, err := url.Parse(strings.TrimSpace(raw)); err == nil && u.User != nil {
			if _, has := u.User.Password(); has {
				parts[i] = u.Redacted()
			}
		}
	}
	return strings.Join(parts, ",")
}

// checkAuth allows one way to authenticate: a credentials file, user and password, a token or
// an nkey seed.
func checkAuth(a *attrs, s Server) {
	var methods []string
	for _, m := range []struct{ attr, set string }{
		{"credentials", s.Credentials}, {"user", s.User}, {"token", s.Token}, {"nkey_seed", s.NkeySeed},
	} {
		if m.set == "" {
			continue
		}
		if len(methods) > 0 {
			a.errorf(m.attr, "%s and %s are alternatives; keep only one of credentials, user/password, token or nkey_seed", methods[0], m.attr)
		}
		methods = append(methods, m.attr)
	}
	if s.User != "" && s.Password == "" && !a.failed["password"] {
		a.errorf("user", `needs a password; add password = "..." (e.g. password = env("NATS_PASSWORD"))`)
	}
	if s.Password != "" && s.User == "" && !a.failed["user"] {
		a.errorf("password", `needs a user; add user = "..."`)
	}
}

// checkEmbedded warns about settings that the chosen mode ignores: authentication, TLS, the
// JetStream address and the inbox prefix only apply to a server at url (or a context's),
// embedded_port and max_payload only to the embedded server.
func checkEmbedded(a *attrs, s Server, tlsBlock *hcl.Block) {
	if s.URL != "" {
		if a.has("embedded_port") {
			a.warnf("embedded_port", "ignored because url is set (no embedded server is started); remove it")
		}
		if a.has("max_payload") {
			a.warnf("max_payload", "ignored because url is set: the server at url has its own max_payload (its configuration file); remove it")
		}
		return
	}
	if s.Context != "" {
		return // applyContext reported the missing url
	}
	for _, m := range []struct{ attr, set string }{
		{"credentials", s.Credentials}, {"user", s.User}, {"password", s.Password}, {"token", s.Token}, {"nkey_seed", s.NkeySeed},
	} {
		if m.set != "" {
			a.warnf(m.attr, "ignored because url is not set: the embedded server lets in only the nkey users in <data_dir>/auth; set url or remove it")
		}
	}
	for _, attr := range []string{"jetstream_domain", "jetstream_api_prefix", "inbox_prefix"} {
		if a.has(attr) {
			a.warnf(attr, "ignored because url is not set: it addresses a server at url, and the embedded server has no domain or prefix; set url or context, or remove it")
		}
	}
	if tlsBlock != nil {
		a.d.warnf(tlsBlock.DefRange, "server: tls: ignored because url is not set: the embedded server listens on 127.0.0.1 without TLS; set url or context, or remove the block")
	}
}

// decodeLog reads the log block.
func (d *decoder) decodeLog(b *hcl.Block) Log {
	a, _ := d.body(b, logSchema, "log")
	return Log{
		Format: a.enum("format", DefaultLogFormat, "text", "json"),
		Level:  a.enum("level", DefaultLogLevel, "trace", "debug", "info", "warn", "error"),
	}
}
