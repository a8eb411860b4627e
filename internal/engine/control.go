package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/internal/engine/auth"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/engine/control"
	"github.com/wasmstream/wasmstream/natsio"
)

// The control plane's wire names, for the CLI (internal/engine/control).
type (
	// TriggerResult answers an on-demand checkpoint.
	TriggerResult = control.TriggerResult
	// UpgradeRequest asks a running pipeline to replace an operator's module.
	UpgradeRequest = control.UpgradeRequest
	// UpgradeReply is the pipeline's answer once it checked the new module.
	UpgradeReply = control.UpgradeReply
)

// ErrNotRunning: no running pipeline answered a control request.
var ErrNotRunning = control.ErrNotRunning

// ControlSubject is where a running pipeline takes on-demand checkpoint
// requests.
func ControlSubject(pipeline string) string { return control.CheckpointSubject(pipeline) }

// UpgradeSubject is where a running pipeline takes upgrade requests.
func UpgradeSubject(pipeline string) string { return control.UpgradeSubject(pipeline) }

// Trigger asks for a checkpoint now (or the one in progress) and waits
// until it completes or fails (control.Handler).
func (p *Pipeline) Trigger(ctx context.Context) (TriggerResult, error) {
	return p.TriggerID(ctx, 0, 0, false)
}

// TriggerCheckpoint asks the running pipeline of cfg for a checkpoint and
// waits (up to timeout) for its result.
func TriggerCheckpoint(ctx context.Context, cfg *config.Pipeline, logger hclog.Logger, timeout time.Duration) (TriggerResult, error) {
	conn, err := connectRunningWith(ctx, cfg, logger)
	if err != nil {
		return TriggerResult{}, err
	}
	defer conn.Close()
	return control.Trigger(conn.NC, cfg.Name, timeout)
}

// RequestUpgrade asks the running pipeline of cfg to replace an operator's
// module and returns its answer (after its checks, before the restart).
func RequestUpgrade(ctx context.Context, cfg *config.Pipeline, req UpgradeRequest, timeout time.Duration) (UpgradeReply, error) {
	conn, err := connectRunning(ctx, cfg)
	if err != nil {
		return UpgradeReply{}, err
	}
	defer conn.Close()
	return control.Upgrade(conn.NC, cfg.Name, req, timeout)
}

// connectRunning connects to the server of cfg's running pipeline: its
// URL, or its embedded server when one listens. Another pipeline's
// embedded server on that port is ErrNotRunning and ErrForeignServer.
func connectRunning(ctx context.Context, cfg *config.Pipeline) (*natsio.Conn, error) {
	return connectRunningWith(ctx, cfg, hclog.NewNullLogger())
}

func connectRunningWith(ctx context.Context, cfg *config.Pipeline, logger hclog.Logger) (*natsio.Conn, error) {
	opts := serverOptions(cfg, logger)
	if opts.URL != "" {
		return natsio.Connect(ctx, opts)
	}
	if !embeddedRunning(opts.EmbeddedPort) {
		return nil, fmt.Errorf("%w: pipeline %q: nothing listens on its embedded server port 127.0.0.1:%d; start it with wasmstream run", ErrNotRunning, cfg.Name, opts.EmbeddedPort)
	}
	conn, err := connectRunningEmbedded(ctx, cfg, logger, auth.Control)
	if errors.Is(err, ErrForeignServer) {
		return nil, fmt.Errorf("%w: %w", ErrNotRunning, err)
	}
	return conn, err
}
