package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/internal/cluster/clusterckpt"
	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// The checkpoints subcommands of a cluster pipeline (a pipeline file with a
// cluster block): the same output style as a data dir's, read from the
// cluster's NATS by package clusterckpt.

// clusterSession is an open cluster checkpoint store and what closes it.
type clusterSession struct {
	*clusterckpt.Store
	ctx   context.Context
	close func()
}

// openCluster connects to cfg's NATS and opens its cluster checkpoints;
// an interrupt cancels what runs on the session's context.
func openCluster(cmd *cobra.Command, cfg *config.Pipeline) (*clusterSession, error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	s, err := clusterckpt.Open(ctx, cfg, clientLogger(cmd))
	if err != nil {
		stop()
		return nil, err
	}
	return &clusterSession{Store: s, ctx: ctx, close: func() { s.Close(); stop() }}, nil
}

// clientLogger shows a client's warnings (a reconnect, say) on stderr: the
// checkpoints commands have no log flags of their own.
func clientLogger(cmd *cobra.Command) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: "wasmstream", Level: hclog.Warn, Output: cmd.ErrOrStderr()})
}
