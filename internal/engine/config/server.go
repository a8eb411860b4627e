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
	a, _ := d.body(b, serverSchema, "server")
	s := Server{
		URL:          a.strOr("url", ""),
		User:         a.strOr("user", ""),
		Password:     a.strOr("password", ""),
		Token:        a.strOr("token", ""),
		EmbeddedPort: int(a.integer("embedded_port", 1, maxPort, DefaultEmbeddedPort)),
		MaxPayload:   int(a.integer("max_payload", MinMaxPayload, MaxMaxPayload, 0)),
		OutageBudget: outageBudget(a),
	}
	if creds := a.strOr("credentials", ""); creds != "" {
		s.Credentials = resolve(d.dir, creds)
	}
	if s.URL != "" && !validServerURLs(s.URL) {
		a.errorf("url", "%q is not a NATS URL; write e.g. \"nats://host:4222\", several separated by commas", redactURLs(s.URL))
	}
	checkAuth(a, s)
	checkEmbedded(a, s)
	// Drop what checkEmbedded warned about so that the effective config shows what is used: the
	// embedded server runs without authentication, and only it takes max_payload.
	if s.URL == "" {
		s.Credentials, s.User, s.Password, s.Token = "", "", "", ""
	} else {
		s.MaxPayload = 0
	}
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

// checkAuth allows one way to authenticate: a credentials file, user and password, or a token.
func checkAuth(a *attrs, s Server) {
	var methods []string
	for _, m := range []struct{ attr, set string }{
		{"credentials", s.Credentials}, {"user", s.User}, {"token", s.Token},
	} {
		if m.set == "" {
			continue
		}
		if len(methods) > 0 {
			a.errorf(m.attr, "%s and %s are alternatives; keep only one of credentials, user/password or token", methods[0], m.attr)
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

// checkEmbedded warns about settings that the chosen mode ignores: authentication only applies
// to a server at url, embedded_port and max_payload only to the embedded server.
func checkEmbedded(a *attrs, s Server) {
	if s.URL != "" {
		if a.has("embedded_port") {
			a.warnf("embedded_port", "ignored because url is set (no embedded server is started); remove it")
		}
		if a.has("max_payload") {
			a.warnf("max_payload", "ignored because url is set: the server at url has its own max_payload (its configuration file); remove it")
		}
		return
	}
	for _, m := range []struct{ attr, set string }{
		{"credentials", s.Credentials}, {"user", s.User}, {"password", s.Password}, {"token", s.Token},
	} {
		if m.set != "" {
			a.warnf(m.attr, "ignored because url is not set: the embedded server lets in only the nkey users in <data_dir>/auth; set url or remove it")
		}
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
