package config

import "fmt"

// applyContext completes s with its NATS context's settings, each one that the block leaves
// unset: what is written in the block wins. Authentication and the JetStream address are
// taken whole, so that a block setting a token never sends the context's user along, and the
// context's files are checked as the block's are.
func (d *decoder) applyContext(a *attrs, s *Server) {
	c, file, err := readContext(s.Context)
	s.ContextFile = file
	if err != nil {
		a.errorf("context", "%v", err)
		return
	}
	bad := func(format string, args ...any) {
		a.errorf("context", "NATS context %q (%s): %s", s.Context, file, fmt.Sprintf(format, args...))
	}
	if s.URL == "" {
		s.URL = c.URL
		switch {
		case s.URL == "":
			bad("has no url; add one to the context (nats context edit %s) or set url in the server block", s.Context)
		case !validServerURLs(s.URL):
			bad("url %q is not a NATS URL; fix the context or set url in the server block", redactURLs(s.URL))
		}
	}
	if !hasAuth(*s) {
		contextAuth(s, c)
		if s.NkeySeed != "" {
			if err := checkNkeySeed(s.NkeySeed); err != nil {
				bad("nkey: %v", err)
			}
		}
	}
	contextTLS(s, c, bad)
	if s.JetStreamDomain == "" && s.JetStreamAPIPrefix == "" {
		contextJetStream(s, c, bad)
	}
	if s.InboxPrefix == "" {
		s.InboxPrefix = c.InboxPrefix
		if err := checkInboxPrefix(s.InboxPrefix); err != nil {
			bad("inbox_prefix: %v", err)
		}
	}
}

// hasAuth reports whether the block sets a way to authenticate.
func hasAuth(s Server) bool {
	return s.Credentials != "" || s.User != "" || s.Password != "" || s.Token != "" || s.NkeySeed != ""
}

// contextAuth takes the context's way to authenticate, in the order natscontext prefers them.
func contextAuth(s *Server, c natsContext) {
	switch {
	case c.User != "":
		s.User, s.Password = c.User, c.Password
	case c.Creds != "":
		s.Credentials = contextPath(c.Creds)
	case c.NKey != "":
		s.NkeySeed = contextPath(c.NKey)
	case c.Token != "":
		s.Token = c.Token
	}
}

// contextTLS takes the context's CA unless the block names one, and its client certificate
// and key unless the block names either.
func contextTLS(s *Server, c natsContext, bad func(string, ...any)) {
	if s.TLS.CAFile == "" && c.CA != "" {
		s.TLS.CAFile = contextPath(c.CA)
		if err := checkCAFile(s.TLS.CAFile); err != nil {
			bad("ca: %v", err)
		}
	}
	if s.TLS.CertFile != "" || s.TLS.KeyFile != "" || (c.Cert == "" && c.Key == "") {
		return
	}
	if c.Cert == "" || c.Key == "" {
		bad("sets only one of cert and key; a client certificate needs both (or set tls { cert_file, key_file } in the server block)")
		return
	}
	s.TLS.CertFile, s.TLS.KeyFile = contextPath(c.Cert), contextPath(c.Key)
	if err := checkKeyPair(s.TLS.CertFile, s.TLS.KeyFile); err != nil {
		bad("cert: %v", err)
	}
}

func contextJetStream(s *Server, c natsContext, bad func(string, ...any)) {
	s.JetStreamDomain, s.JetStreamAPIPrefix = c.JSDomain, c.JSAPIPrefix
	if s.JetStreamDomain != "" && s.JetStreamAPIPrefix != "" {
		bad("sets both jetstream_domain and jetstream_api_prefix; keep one, or set one in the server block")
	}
	if err := checkDomain(s.JetStreamDomain); err != nil {
		bad("jetstream_domain: %v", err)
	}
	if err := checkSubjectPrefix(s.JetStreamAPIPrefix); err != nil {
		bad("jetstream_api_prefix: %v", err)
	}
}
