package engine

import (
	"context"
	"fmt"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
)

// ConnectCluster connects to the NATS cluster of a pipeline run by
// `wasmstream worker` without touching its streams. `wasmstream deploy`
// (or the first worker) creates the streams; the commands that only read
// or write the control bucket (status, scale, cluster checkpoints) must
// keep working while a stream's leader is being elected, when a stream
// lookup times out.
func ConnectCluster(ctx context.Context, cfg *config.Pipeline, logger hclog.Logger) (*natsio.Conn, error) {
	if cfg.Server.URL == "" {
		return nil, fmt.Errorf("pipeline %q: a cluster pipeline needs server.url", cfg.Name)
	}
	return natsio.Connect(ctx, serverOptions(cfg, logger))
}

// EnsureStreams creates cfg's declared streams that are missing and checks
// the others against their declarations.
func EnsureStreams(ctx context.Context, cfg *config.Pipeline, conn *natsio.Conn) error {
	return ensureStreams(ctx, cfg, conn)
}
