package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/engine/control"
)

// The run service's wire names, for the CLI (internal/engine/control).
type (
	// RunStatus is a running pipeline's answer on its status endpoint.
	RunStatus = control.Status
	// StopReply is its answer to a stop, once the run returned.
	StopReply = control.StopReply
	// CheckpointStatus is a completed checkpoint as they report it.
	CheckpointStatus = control.CheckpointStatus
	// SourceStatus is a source's position and lag as they report it.
	SourceStatus = control.SourceStatus
)

// StatusOfRun asks the running pipeline of cfg (run by wasmstream run) for
// its status; none running is ErrNotRunning.
func StatusOfRun(ctx context.Context, cfg *config.Pipeline, timeout time.Duration) (RunStatus, error) {
	conn, err := connectRunning(ctx, cfg)
	if err != nil {
		return RunStatus{}, err
	}
	defer conn.Close()
	return control.AskStatus(conn.NC, cfg.Name, timeout)
}

// StopRun asks the running pipeline of cfg to stop as on SIGTERM and
// waits, up to timeout in all, for its answer and then for its service to
// be gone; none running is ErrNotRunning.
func StopRun(ctx context.Context, cfg *config.Pipeline, timeout time.Duration) (StopReply, error) {
	conn, err := connectRunning(ctx, cfg)
	if err != nil {
		return StopReply{}, err
	}
	defer conn.Close()
	deadline := time.Now().Add(timeout)
	reply, err := control.AskStop(conn.NC, cfg.Name, timeout)
	if errors.Is(err, nats.ErrTimeout) {
		return StopReply{}, fmt.Errorf("pipeline %q: asked to stop, but its final checkpoint did not complete within %s: it is still stopping; check its log, or raise --timeout", cfg.Name, timeout)
	}
	if err != nil {
		return reply, err
	}
	if err := control.WaitGone(conn.NC, cfg.Name, time.Until(deadline)); err != nil {
		return reply, err
	}
	return reply, waitEmbeddedGone(cfg, deadline)
}

// waitEmbeddedGone waits until nothing listens on cfg's embedded server
// port any more: that server lives in the pipeline's process, so its
// exit is the process's. A pipeline on a server at a URL has nothing to
// wait for.
func waitEmbeddedGone(cfg *config.Pipeline, deadline time.Time) error {
	if cfg.Server.URL != "" {
		return nil
	}
	port := serverOptions(cfg, hclog.NewNullLogger()).EmbeddedPort
	for embeddedRunning(port) {
		if time.Now().After(deadline) {
			return fmt.Errorf("pipeline %q stopped, but its process still serves its embedded server on 127.0.0.1:%d: it is still exiting; check its log", cfg.Name, port)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}

// RunningPipelines lists the status of every pipeline whose wasmstream run
// answers discovery on cfg's server within listen (cfg may name only a
// server). A pipeline that stops between the two questions is left out.
func RunningPipelines(ctx context.Context, cfg *config.Pipeline, listen, timeout time.Duration) ([]RunStatus, error) {
	conn, err := connectRunning(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	infos, err := control.Discover(conn.NC, listen)
	if err != nil {
		return nil, err
	}
	out := make([]RunStatus, 0, len(infos))
	for _, info := range infos {
		st, err := control.AskStatus(conn.NC, info.Metadata[control.MetaPipeline], timeout)
		if errors.Is(err, ErrNotRunning) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}
