package engine

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/internal/engine/auth"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
)

// ConnectClient connects a command-line client to the pipeline's NATS as
// role (package auth): the configured server; else the embedded server of
// the running pipeline on 127.0.0.1:<embedded_port>, refused
// (ErrForeignServer) when the server there is another pipeline's; else a
// temporary embedded server on the pipeline's store, so records can be
// published before the first run. Declared streams are ensured either way.
func ConnectClient(ctx context.Context, cfg *config.Pipeline, logger hclog.Logger, role auth.Role) (*natsio.Conn, error) {
	opts := serverOptions(cfg, logger)
	if opts.URL != "" {
		return connectAndEnsure(ctx, cfg, opts)
	}
	if !embeddedRunning(opts.EmbeddedPort) {
		owner, err := ownerOptions(cfg, logger)
		if err != nil {
			return nil, err
		}
		return connectAndEnsure(ctx, cfg, owner)
	}
	logger.Debug("using the running pipeline's embedded server", "port", opts.EmbeddedPort, "as", role)
	conn, err := connectRunningEmbedded(ctx, cfg, logger, role)
	if err != nil {
		return nil, err
	}
	if err := ensureStreams(ctx, cfg, conn); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// Roles a client connects to a pipeline's embedded server as.
const (
	// AsControl: every right (operator push/rm, upgrade, savepoints, checkpoints).
	AsControl = auth.Control
	// AsData: publish into sources and read streams only.
	AsData = auth.Data
)

// serverOptions maps the pipeline's server block to natsio options; the
// embedded server's store lives in the data dir, and its name says whose
// it is (embeddedServerName).
func serverOptions(cfg *config.Pipeline, logger hclog.Logger) natsio.ServerOptions {
	s := cfg.Server
	opts := natsio.ServerOptions{
		URL: s.URL, EmbeddedPort: s.EmbeddedPort, MaxPayload: s.MaxPayload, StoreDir: filepath.Join(cfg.DataDir, "jetstream"),
		ServerName: embeddedServerName(cfg), Logger: logger.Named("nats"),
	}
	if s.URL != "" {
		remoteOptions(&opts, s)
	}
	return opts
}

// connectAndEnsure connects and creates the pipeline's declared streams
// that are missing.
func connectAndEnsure(ctx context.Context, cfg *config.Pipeline, opts natsio.ServerOptions) (*natsio.Conn, error) {
	conn, err := natsio.Connect(ctx, opts)
	if err != nil {
		return nil, err
	}
	if err := ensureStreams(ctx, cfg, conn); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// ensureStreams creates the pipeline's declared streams that are missing.
func ensureStreams(ctx context.Context, cfg *config.Pipeline, conn *natsio.Conn) error {
	atomic := atomicStreams(cfg)
	for _, st := range cfg.Streams {
		spec := natsio.StreamSpec{Name: st.Name, Subjects: st.Subjects, DuplicateWindow: st.DuplicateWindow, Storage: st.Storage, Retention: st.Retention, Replicas: st.Replicas}
		ensure := conn.EnsureStream
		if atomic[st.Name] {
			ensure = conn.EnsureAtomicStream
		}
		if _, err := ensure(ctx, spec); err != nil {
			return fmt.Errorf("%s: stream %q: %w", config.Pos(st.Range), st.Name, err)
		}
	}
	return nil
}

// atomicStreams names the declared streams that capture a transactional
// sink's subject: they must allow atomic batch publish.
func atomicStreams(cfg *config.Pipeline) map[string]bool {
	out := map[string]bool{}
	for _, s := range cfg.Sinks {
		if st := cfg.StreamCapturing(s.Subject); st != nil && s.Mode == config.ModeTransactional {
			out[st.Name] = true
		}
	}
	return out
}

func embeddedRunning(port int) bool {
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), 500*time.Millisecond)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}
