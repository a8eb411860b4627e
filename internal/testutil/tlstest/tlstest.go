// Package tlstest makes the certificates of TLS tests: a CA, a server certificate for
// 127.0.0.1 and a client certificate it signed, written as PEM files in a test's temp dir.
// Keys are ECDSA P-256 and certificates valid for an hour.
package tlstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Files are the PEM files of one CA and the certificates it signed.
type Files struct {
	CA                    string // the CA's certificate
	ServerCert, ServerKey string // for 127.0.0.1 and localhost
	ClientCert, ClientKey string // a client certificate, CN "wasmstream-test-client"
}

// Generate writes a fresh CA, server and client certificate into a temp dir.
func Generate(tb testing.TB) Files {
	tb.Helper()
	dir := tb.TempDir()
	ca, caKey := newCA(tb, "wasmstream test CA")
	f := Files{CA: filepath.Join(dir, "ca.pem")}
	writePEM(tb, f.CA, "CERTIFICATE", ca.Raw)
	server := &x509.Certificate{
		Subject:     pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:    []string{"localhost"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	f.ServerCert, f.ServerKey = issue(tb, dir, "server", server, ca, caKey)
	client := &x509.Certificate{
		Subject:     pkix.Name{CommonName: "wasmstream-test-client"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	f.ClientCert, f.ClientKey = issue(tb, dir, "client", client, ca, caKey)
	return f
}

// OtherCA writes the certificate of a CA that signed nothing Generate made.
func OtherCA(tb testing.TB) string {
	tb.Helper()
	ca, _ := newCA(tb, "some other CA")
	path := filepath.Join(tb.TempDir(), "other-ca.pem")
	writePEM(tb, path, "CERTIFICATE", ca.Raw)
	return path
}

// ServerConfig is the server side: its certificate and, with verifyClients, a demand for a
// client certificate signed by the CA (mutual TLS).
func (f Files) ServerConfig(tb testing.TB, verifyClients bool) *tls.Config {
	tb.Helper()
	cert, err := tls.LoadX509KeyPair(f.ServerCert, f.ServerKey)
	if err != nil {
		tb.Fatal(err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if verifyClients {
		pem, err := os.ReadFile(f.CA)
		if err != nil {
			tb.Fatal(err)
		}
		cfg.ClientCAs = x509.NewCertPool()
		cfg.ClientCAs.AppendCertsFromPEM(pem)
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return cfg
}

func newCA(tb testing.TB, name string) (*x509.Certificate, *ecdsa.PrivateKey) {
	tb.Helper()
	key := newKey(tb)
	tmpl := &x509.Certificate{
		SerialNumber: serial(tb), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatal(err)
	}
	return cert, key
}

// issue signs tmpl with the CA and writes <name>.pem and <name>-key.pem.
func issue(tb testing.TB, dir, name string, tmpl, ca *x509.Certificate, caKey *ecdsa.PrivateKey) (certFile, keyFile string) {
	tb.Helper()
	key := newKey(tb)
	tmpl.SerialNumber = serial(tb)
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Minute), time.Now().Add(time.Hour)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		tb.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		tb.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, name+".pem"), filepath.Join(dir, name+"-key.pem")
	writePEM(tb, certFile, "CERTIFICATE", der)
	writePEM(tb, keyFile, "EC PRIVATE KEY", keyDER)
	return certFile, keyFile
}

func newKey(tb testing.TB) *ecdsa.PrivateKey {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	return key
}

func serial(tb testing.TB) *big.Int {
	tb.Helper()
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

func writePEM(tb testing.TB, path, kind string, der []byte) {
	tb.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		tb.Fatal(err)
	}
}
