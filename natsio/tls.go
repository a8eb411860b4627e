package natsio

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/nats-io/nats.go"
)

// usesTLS reports whether o names TLS files; a tls:// URL uses TLS without any, trusting the
// system's roots.
func (o ServerOptions) usesTLS() bool {
	return o.TLSCAFile != "" || o.TLSCertFile != "" || o.TLSKeyFile != ""
}

// tlsOption is the nats.go option for o's TLS files, nil without any. The files are read
// here rather than by nats.RootCAs and nats.ClientCert so that a bad file is named with the
// setting that points at it.
func tlsOption(o ServerOptions) (nats.Option, error) {
	if !o.usesTLS() {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.TLSCAFile != "" {
		pool, err := certPool(o.TLSCAFile)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	if o.TLSCertFile != "" {
		cert, err := tls.LoadX509KeyPair(o.TLSCertFile, o.TLSKeyFile)
		if err != nil {
			return nil, fmt.Errorf("%w: server.tls.cert_file %q with key_file %q: %w; give the PEM client certificate and the private key it was issued for", ErrInvalidOptions, o.TLSCertFile, o.TLSKeyFile, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return nats.Secure(cfg), nil
}

func certPool(caFile string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("%w: server.tls.ca_file: %w; point it at the PEM file of the CA that signed the server's certificate", ErrInvalidOptions, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%w: server.tls.ca_file %q: no certificate found; point it at a PEM file with the CA that signed the server's certificate", ErrInvalidOptions, caFile)
	}
	return pool, nil
}

// explainTLS says in the settings' words why a connection failed in its TLS handshake, or
// returns "" when err is not about TLS.
func explainTLS(err error, o ServerOptions) string {
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	msg := err.Error()
	switch {
	case errors.As(err, &unknown) && o.TLSCAFile != "":
		return fmt.Sprintf("the server's certificate is not signed by server.tls.ca_file %q; point ca_file at the CA that signed it", o.TLSCAFile)
	case errors.As(err, &unknown):
		return "the server's certificate is not signed by a CA this machine trusts; set server.tls.ca_file to the PEM file of the CA that signed it"
	case errors.As(err, &host):
		return fmt.Sprintf("the server's certificate is not valid for the host in server.url (%v); use a host name or address the certificate lists", host)
	case errors.As(err, &invalid):
		return fmt.Sprintf("the server's certificate is not valid (%v); renew it or check this machine's clock", invalid)
	case o.TLSCertFile == "" && (strings.Contains(msg, "certificate required") || strings.Contains(msg, "bad certificate") || closedAfterHandshake(err)):
		return "the server requires a client certificate (mutual TLS): it closed the connection after the TLS handshake; set server.tls.cert_file and server.tls.key_file"
	case o.TLSCertFile != "" && (strings.Contains(msg, "remote error: tls:") || closedAfterHandshake(err)):
		return fmt.Sprintf("the server refused the client certificate server.tls.cert_file %q; use one signed by a CA the server trusts (its tls { ca_file })", o.TLSCertFile)
	case errors.Is(err, nats.ErrSecureConnRequired):
		return "the server requires TLS; use a tls:// URL or set server.tls.ca_file"
	case errors.Is(err, nats.ErrSecureConnWanted):
		return "server.tls is set but the server does not offer TLS; remove the tls block or enable TLS on the server"
	}
	return ""
}

// closedAfterHandshake is nats.go's report of a server that hung up once TLS was set up, which
// is what nats-server does to a client whose certificate it does not accept (TLS 1.3 lets the
// client finish its side of the handshake first).
func closedAfterHandshake(err error) bool {
	return errors.Is(err, nats.ErrTLS) && strings.Contains(err.Error(), "closed by remote after TLS handshake")
}
