package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
)

// clusterClient is what a command on a cluster pipeline works with.
type clusterClient struct {
	cfg  *config.Pipeline
	conn *natsio.Conn
	ctx  context.Context
	stop func()
}

// dialCluster loads path, refuses a pipeline without a cluster block
// (notCluster says what to do instead) and connects to its NATS; the
// context ends at SIGINT. close releases both.
func dialCluster(cmd *cobra.Command, g *globalFlags, path, notCluster string) (*clusterClient, error) {
	cfg, err := loadConfig(path, cmd.ErrOrStderr())
	if err != nil {
		return nil, err
	}
	return connectCluster(g, path, cfg, notCluster)
}

// connectCluster is dialCluster for a pipeline file already loaded.
func connectCluster(g *globalFlags, path string, cfg *config.Pipeline, notCluster string) (*clusterClient, error) {
	if !hasClusterBlock(cfg) {
		return nil, fmt.Errorf("%s has no cluster block: %s", path, notCluster)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	conn, err := engine.ConnectCluster(ctx, cfg, newLogger(g, cfg))
	if err != nil {
		stop()
		return nil, err
	}
	return &clusterClient{cfg: cfg, conn: conn, ctx: ctx, stop: stop}, nil
}

// hasClusterBlock tells a cluster pipeline (run by wasmstream worker)
// from one that wasmstream run runs in one process.
func hasClusterBlock(cfg *config.Pipeline) bool { return cfg.Cluster.Range != (config.Cluster{}).Range }

func (c *clusterClient) close() {
	c.conn.Close()
	c.stop()
}
