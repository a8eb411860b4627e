package config

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// TLS names the PEM files of a TLS connection to the server at url; every path is absolute.
type TLS struct {
	// CAFile holds the certificates that may sign the server's certificate. They replace the
	// system's roots, as a private CA's users want; empty trusts the system's roots.
	CAFile string
	// CertFile and KeyFile, both or neither, are the client certificate and its private key,
	// which a server that verifies clients (mutual TLS, nats-server's tls { verify: true })
	// asks for.
	CertFile, KeyFile string
}

// tlsSchema is a nested block, as in nats-server's own configuration and in messages such as
// "server.tls.ca_file": the three files belong together, and a block keeps them apart from
// the server's other files (credentials, nkey_seed).
var tlsSchema = &hcl.BodySchema{Attributes: attributes("ca_file", "cert_file", "key_file")}

// decodeTLS reads the server's tls block into s and returns it (nil without one). Its files
// are checked only when they are used (remote): the embedded server drops them.
func (d *decoder) decodeTLS(blocks hcl.Blocks, s *Server, remote bool) *hcl.Block {
	var first *hcl.Block
	for _, b := range blocks {
		if b.Type != "tls" {
			continue
		}
		if first != nil {
			d.errorf(b.DefRange, "server: only one tls block is allowed (first at %s); merge them", Pos(first.DefRange))
			continue
		}
		first = b
		a, _ := d.body(b, tlsSchema, "server.tls")
		s.TLS = TLS{CAFile: d.pathAttr(a, "ca_file"), CertFile: d.pathAttr(a, "cert_file"), KeyFile: d.pathAttr(a, "key_file")}
		if remote {
			checkTLSAttrs(a, s.TLS)
		}
	}
	return first
}

// pathAttr reads a path attribute, absolute against the config file's directory; "" when unset.
func (d *decoder) pathAttr(a *attrs, name string) string {
	if p := a.strOr(name, ""); p != "" {
		return resolve(d.dir, p)
	}
	return ""
}

// checkTLSAttrs reports the tls block's files that are missing, unreadable or not what their
// attribute says.
func checkTLSAttrs(a *attrs, t TLS) {
	switch {
	case t.CertFile != "" && t.KeyFile == "":
		a.errorf("cert_file", `needs key_file, the private key of the client certificate; add key_file = "client-key.pem"`)
	case t.KeyFile != "" && t.CertFile == "":
		a.errorf("key_file", `needs cert_file, the client certificate of this key; add cert_file = "client.pem"`)
	case t.CertFile != "":
		if err := checkKeyPair(t.CertFile, t.KeyFile); err != nil {
			a.errorf("cert_file", "%v", err)
		}
	}
	if t.CAFile != "" {
		if err := checkCAFile(t.CAFile); err != nil {
			a.errorf("ca_file", "%v", err)
		}
	}
}

// checkCAFile reports a CA file that cannot be read or holds no PEM certificate.
func checkCAFile(path string) error {
	pem, reason := readRegular(path)
	if reason != nil {
		return fmt.Errorf("%q: %w; point it at the PEM file of the CA that signed the server's certificate", path, reason)
	}
	if !x509.NewCertPool().AppendCertsFromPEM(pem) {
		return fmt.Errorf("%q: no certificate found; point it at a PEM file with the CA that signed the server's certificate", path)
	}
	return nil
}

// checkKeyPair reports a client certificate and key that cannot be read or do not belong
// together.
func checkKeyPair(certFile, keyFile string) error {
	for _, f := range []string{certFile, keyFile} {
		if _, reason := readRegular(f); reason != nil {
			return fmt.Errorf("%q: %w; give the PEM client certificate (cert_file) and its private key (key_file)", f, reason)
		}
	}
	if _, err := tls.LoadX509KeyPair(certFile, keyFile); err != nil {
		return fmt.Errorf("%q with key %q: %w; give the PEM client certificate and the private key it was issued for", certFile, keyFile, err)
	}
	return nil
}
