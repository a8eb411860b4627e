package natsio

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// EmbeddedUser is an nkey user of the embedded server. Nil Publish and
// Subscribe allow every subject; a list allows only the subjects (and
// wildcards) in it. DenyPublish takes subjects back out of Publish.
type EmbeddedUser struct {
	// PublicKey is the user's nkey public key ("U…").
	PublicKey   string
	Publish     []string
	DenyPublish []string
	Subscribe   []string
}

// serverNkeys maps users to nats-server's nkey users. With nkeys the
// server sends a nonce the client signs: no secret crosses the socket, so
// a process that squats the port learns nothing it could replay.
// No users is nil: nats-server takes an empty list for nkey auth.
func serverNkeys(users []EmbeddedUser) []*server.NkeyUser {
	if len(users) == 0 {
		return nil
	}
	out := make([]*server.NkeyUser, 0, len(users))
	for _, u := range users {
		out = append(out, &server.NkeyUser{Nkey: u.PublicKey, Permissions: permissions(u)})
	}
	return out
}

func permissions(u EmbeddedUser) *server.Permissions {
	if u.Publish == nil && u.Subscribe == nil {
		return nil
	}
	p := &server.Permissions{}
	if u.Publish != nil {
		p.Publish = &server.SubjectPermission{Allow: u.Publish, Deny: u.DenyPublish}
	}
	if u.Subscribe != nil {
		p.Subscribe = &server.SubjectPermission{Allow: u.Subscribe}
	}
	return p
}

// serverInfo is the part of a server's INFO line ProbeServer reads.
type serverInfo struct {
	Name         string `json:"server_name"`
	AuthRequired bool   `json:"auth_required"`
}

// probeTimeout bounds ProbeServer: a NATS server sends INFO at once.
const probeTimeout = 2 * time.Second

// ProbeServer reads the INFO a NATS server at addr (host:port) sends on
// connect, without authenticating, and returns the server's name. A
// client checks whose server it reached before it offers credentials.
// Nothing listening is ErrConnect.
func ProbeServer(ctx context.Context, addr string) (name string, err error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", fmt.Errorf("%w at %s: %w", ErrConnect, addr, err)
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetReadDeadline(dl)
	}
	line, err := bufio.NewReaderSize(c, 4096).ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("%w at %s: no INFO from the server: %w", ErrConnect, addr, err)
	}
	return parseInfoName(addr, line)
}

// parseInfoName reads the server name out of an "INFO {json}" line.
func parseInfoName(addr, line string) (string, error) {
	payload, ok := strings.CutPrefix(strings.TrimSpace(line), "INFO ")
	if !ok {
		return "", fmt.Errorf("%w at %s: not a NATS server (it sent %.40q)", ErrConnect, addr, line)
	}
	var info serverInfo
	if err := json.Unmarshal([]byte(payload), &info); err != nil {
		return "", fmt.Errorf("%w at %s: unreadable INFO: %w", ErrConnect, addr, err)
	}
	return info.Name, nil
}
