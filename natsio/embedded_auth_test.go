package natsio

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nkeys"
)

// userSeed writes a fresh nkey user seed to a private file and returns
// the file and the public key.
func userSeed(t *testing.T) (file, public string) {
	t.Helper()
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := kp.Seed()
	public, _ = kp.PublicKey()
	file = filepath.Join(t.TempDir(), "user.nk")
	if err := os.WriteFile(file, seed, 0o600); err != nil {
		t.Fatal(err)
	}
	return file, public
}

// TestEmbeddedNkeyUsers: with EmbeddedUsers the embedded server lets in
// only those users, and a user with an allow list can publish to its
// subjects only.
func TestEmbeddedNkeyUsers(t *testing.T) {
	adminSeed, admin := userSeed(t)
	limitedSeed, limited := userSeed(t)
	srv, err := Connect(testCtx(t), ServerOptions{
		StoreDir: t.TempDir(), EmbeddedPort: RandomPort, NkeySeedFile: adminSeed,
		EmbeddedUsers: []EmbeddedUser{{PublicKey: admin}, {PublicKey: limited, Publish: []string{"in.>"}, DenyPublish: []string{"in.secret"}, Subscribe: []string{"_INBOX.>"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if _, err := Connect(testCtx(t), ServerOptions{URL: srv.ClientURL()}); !errors.Is(err, ErrConnect) {
		t.Fatalf("anonymous connect: err = %v, want ErrConnect", err)
	}
	strangerSeed, _ := userSeed(t)
	if _, err := Connect(testCtx(t), ServerOptions{URL: srv.ClientURL(), NkeySeedFile: strangerSeed}); !errors.Is(err, ErrConnect) {
		t.Fatalf("unknown nkey: err = %v, want ErrConnect", err)
	}
	c, err := Connect(testCtx(t), ServerOptions{URL: srv.ClientURL(), NkeySeedFile: limitedSeed})
	if err != nil {
		t.Fatalf("limited user: %v", err)
	}
	defer c.Close()
	if err := publishAndFlush(c, "in.x"); err != nil {
		t.Fatalf("limited user, allowed subject: %v", err)
	}
	for _, subject := range []string{"control.x", "in.secret"} {
		c := connectAs(t, srv, limitedSeed) // a connection keeps its last error
		if err := publishAndFlush(c, subject); err == nil || !strings.Contains(err.Error(), "Permissions Violation") {
			t.Fatalf("limited user, %s: err = %v, want a permissions violation", subject, err)
		}
	}
	if err := publishAndFlush(srv, "control.x"); err != nil {
		t.Fatalf("admin user: %v", err)
	}
}

func connectAs(t *testing.T, srv *Conn, seed string) *Conn {
	t.Helper()
	c, err := Connect(testCtx(t), ServerOptions{URL: srv.ClientURL(), NkeySeedFile: seed})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func publishAndFlush(c *Conn, subject string) error {
	if err := c.NC.Publish(subject, []byte("x")); err != nil {
		return err
	}
	if err := c.NC.Flush(); err != nil {
		return err
	}
	return c.NC.LastError()
}

func TestEmbeddedUsersExcludeUserPassword(t *testing.T) {
	o := ServerOptions{StoreDir: "/x", User: "u", Password: "p", EmbeddedUsers: []EmbeddedUser{{PublicKey: "U"}}}
	if err := o.Validate(); !errors.Is(err, ErrInvalidOptions) {
		t.Fatalf("err = %v, want ErrInvalidOptions", err)
	}
}

func TestNkeySeedFileMissing(t *testing.T) {
	srv := embedded(t)
	_, err := Connect(testCtx(t), ServerOptions{URL: srv.ClientURL(), NkeySeedFile: filepath.Join(t.TempDir(), "none.nk")})
	if !errors.Is(err, ErrConnect) || !strings.Contains(err.Error(), "none.nk") {
		t.Fatalf("err = %v, want ErrConnect naming the seed file", err)
	}
}

func TestProbeServerReadsTheName(t *testing.T) {
	c, err := Connect(testCtx(t), ServerOptions{StoreDir: t.TempDir(), EmbeddedPort: RandomPort, ServerName: "wasmstream-p-0123456789ab", Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	name, err := ProbeServer(testCtx(t), strings.TrimPrefix(c.ClientURL(), "nats://"))
	if err != nil || name != "wasmstream-p-0123456789ab" {
		t.Fatalf("ProbeServer = %q, %v; want the server's name", name, err)
	}
}

func TestProbeServerRefusesWhatIsNotNATS(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		conn, err := l.Accept()
		if err == nil {
			_, _ = conn.Write([]byte("HTTP/1.1 400 Bad Request\r\n"))
			conn.Close()
		}
	}()
	_, err = ProbeServer(testCtx(t), l.Addr().String())
	if !errors.Is(err, ErrConnect) || !strings.Contains(err.Error(), "not a NATS server") {
		t.Fatalf("err = %v, want ErrConnect saying it is not NATS", err)
	}
}

func FuzzParseInfoName(f *testing.F) {
	f.Add(`INFO {"server_name":"a"}`)
	f.Add("INFO {")
	f.Add("")
	f.Fuzz(func(t *testing.T, line string) {
		name, err := parseInfoName("addr", line)
		if err != nil && name != "" {
			t.Fatalf("name %q with error %v", name, err)
		}
	})
}
