package config

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/nats-io/nkeys"
)

// checkNkeySeed reports a seed file that cannot be read or holds no nkey user seed.
func checkNkeySeed(path string) error {
	raw, reason := readRegular(path)
	if reason != nil {
		return fmt.Errorf("%q: %w; point it at the file with the user's nkey seed (nk -gen user)", path, reason)
	}
	defer wipe(raw)
	if nkeys.IsValidPublicUserKey(string(bytes.TrimSpace(raw))) {
		return fmt.Errorf("%q holds a public key, not a seed; give the seed (SU...) whose public key the server lists", path)
	}
	kp, err := nkeys.ParseDecoratedNKey(raw)
	if err != nil {
		return fmt.Errorf("%q: no nkey seed found (%v); it must hold a user seed, a line starting with SU", path, err)
	}
	defer kp.Wipe()
	if pub, err := kp.PublicKey(); err != nil || !strings.HasPrefix(pub, "U") {
		return fmt.Errorf("%q is not a user seed (its public key does not start with U); give a user seed, a line starting with SU", path)
	}
	return nil
}

func wipe(b []byte) { copy(b, bytes.Repeat([]byte{'x'}, len(b))) }

// checkJetStream reports a JetStream domain and API prefix set together, and values that
// cannot be part of a subject.
func checkJetStream(a *attrs, s Server) {
	if s.JetStreamDomain != "" && s.JetStreamAPIPrefix != "" {
		a.errorf("jetstream_api_prefix", "and jetstream_domain are alternatives (a domain is the prefix $JS.<domain>.API); keep only one")
	}
	if err := checkDomain(s.JetStreamDomain); err != nil {
		a.errorf("jetstream_domain", "%v", err)
	}
	if err := checkSubjectPrefix(s.JetStreamAPIPrefix); err != nil {
		a.errorf("jetstream_api_prefix", "%v", err)
	}
	if err := checkInboxPrefix(s.InboxPrefix); err != nil {
		a.errorf("inbox_prefix", "%v", err)
	}
}

// checkInboxPrefix is checkSubjectPrefix without a trailing '.': nats.go adds it.
func checkInboxPrefix(prefix string) error {
	if strings.HasSuffix(prefix, ".") {
		return fmt.Errorf("%q: leave out the trailing '.'; replies go to <prefix>.<id>", prefix)
	}
	return checkSubjectPrefix(prefix)
}

// checkDomain accepts what nats-server accepts as a JetStream domain: one subject token.
func checkDomain(domain string) error {
	if strings.ContainsAny(domain, ". \t\r\n*>") {
		return fmt.Errorf("%q is not a JetStream domain: it becomes one token of $JS.<domain>.API, so no '.', '*', '>' or spaces; write the server's jetstream { domain }", domain)
	}
	return nil
}

// checkSubjectPrefix accepts a literal subject prefix such as "_INBOX_app" or "$JS.hub.API".
func checkSubjectPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	trimmed := strings.TrimSuffix(prefix, ".")
	if strings.ContainsAny(prefix, " \t\r\n*>") || trimmed == "" || strings.HasPrefix(prefix, ".") || strings.Contains(trimmed, "..") {
		return fmt.Errorf("%q is not a subject prefix: write literal tokens separated by '.', without '*', '>' or spaces", prefix)
	}
	return nil
}
