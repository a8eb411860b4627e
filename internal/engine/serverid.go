package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/internal/engine/auth"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
)

// A pipeline's embedded server is named "wasmstream-<pipeline>-<hash>",
// where <hash> is dataDirHash of its data dir. Clients that find a server
// on the pipeline's embedded port (publish, read, operator, savepoint,
// checkpoints trigger) compare its name with the one the pipeline file
// gives, so that two pipeline files on one port do not write into each
// other's streams. A server.url is the user's choice and is not checked.

// ErrForeignServer: the NATS server on a pipeline's embedded port is not
// that pipeline's embedded server.
var ErrForeignServer = errors.New("another server holds this pipeline's embedded port")

const embeddedNamePrefix = "wasmstream-"

// dataDirHashLen is how many hex digits of the data dir's SHA-256 the
// server name carries: enough to tell data dirs apart, short to read.
const dataDirHashLen = 12

// embeddedServerName is the name of cfg's embedded server.
func embeddedServerName(cfg *config.Pipeline) string {
	return embeddedNamePrefix + cfg.Name + "-" + dataDirHash(cfg.DataDir)
}

// dataDirHash identifies a data dir by its absolute path with symlinks
// resolved, so that two spellings of one directory are one pipeline.
func dataDirHash(dir string) string {
	sum := sha256.Sum256([]byte(canonicalPath(dir)))
	return hex.EncodeToString(sum[:])[:dataDirHashLen]
}

// canonicalPath resolves the symlinks of the longest existing prefix of
// dir: a data dir that does not exist yet (a client before the first run)
// gets the name it will have once it does.
func canonicalPath(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return filepath.Clean(dir)
	}
	var rest []string
	for p := abs; ; p = filepath.Dir(p) {
		if resolved, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{resolved}, rest...)...)
		}
		if _, err := os.Lstat(p); err == nil || filepath.Dir(p) == p {
			return abs // a broken link or an unreadable parent: keep the path as written
		}
		rest = append([]string{filepath.Base(p)}, rest...)
	}
}

// connectRunningEmbedded connects as role to the server on cfg's embedded
// port once it made sure, before offering any credentials, that it is
// cfg's pipeline's embedded server.
func connectRunningEmbedded(ctx context.Context, cfg *config.Pipeline, logger hclog.Logger, role auth.Role) (*natsio.Conn, error) {
	addr := fmt.Sprintf("127.0.0.1:%d", serverOptions(cfg, logger).EmbeddedPort)
	name, err := natsio.ProbeServer(ctx, addr)
	if err != nil {
		return nil, err
	}
	if err := checkServerOwner(cfg, addr, name); err != nil {
		return nil, err
	}
	opts, err := clientOptions(cfg, logger, role)
	if err != nil {
		return nil, err
	}
	opts.URL = "nats://" + addr
	conn, err := natsio.Connect(ctx, opts)
	if err != nil {
		return nil, err
	}
	// The port may have changed hands since the probe.
	if err := checkServerOwner(cfg, addr, conn.NC.ConnectedServerName()); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// checkServerOwner refuses a server named otherwise than cfg's embedded
// server, saying whose it is and what to do.
func checkServerOwner(cfg *config.Pipeline, addr, name string) error {
	if name == embeddedServerName(cfg) {
		return nil
	}
	this := fmt.Sprintf("pipeline %q (data dir %s, hash %s)", cfg.Name, cfg.DataDir, dataDirHash(cfg.DataDir))
	owner, hash, ok := parseEmbeddedName(name)
	if !ok {
		return fmt.Errorf("%w: %s (server.embedded_port) is a NATS server named %q, not the embedded server of %s; "+
			"stop that server (a pipeline run by an older wasmstream names its server %q: restart it), "+
			"give this pipeline another server.embedded_port, or set server.url to use that server on purpose",
			ErrForeignServer, addr, name, this, natsio.DefaultServerName)
	}
	whose := fmt.Sprintf("pipeline %q (data dir hash %s)", owner, hash)
	if owner == cfg.Name {
		whose = fmt.Sprintf("pipeline %q on another data dir (hash %s)", owner, hash)
	}
	return fmt.Errorf("%w: %s (server.embedded_port) is the embedded server of %s, not of %s; "+
		"stop pipeline %q, or give this pipeline another server.embedded_port",
		ErrForeignServer, addr, whose, this, owner)
}

// parseEmbeddedName reads pipeline and data dir hash out of an embedded
// server's name.
func parseEmbeddedName(name string) (pipeline, hash string, ok bool) {
	rest, ok := strings.CutPrefix(name, embeddedNamePrefix)
	if !ok {
		return "", "", false
	}
	i := strings.LastIndexByte(rest, '-')
	if i <= 0 || len(rest)-i-1 != dataDirHashLen {
		return "", "", false
	}
	if _, err := hex.DecodeString(rest[i+1:]); err != nil {
		return "", "", false
	}
	return rest[:i], rest[i+1:], true
}
