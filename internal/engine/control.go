package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
)

// ControlSubject is where a running pipeline takes on-demand checkpoint
// requests: a request gets a JSON TriggerResult once the checkpoint is done.
func ControlSubject(pipeline string) string {
	return "wasmstream.control." + pipeline + ".checkpoint"
}

// ErrNotRunning: no running pipeline answered a control request.
var ErrNotRunning = errors.New("pipeline is not running")

// serveControl answers on-demand checkpoint requests.
func (p *Pipeline) serveControl() error {
	sub, err := p.conn.NC.Subscribe(ControlSubject(p.cfg.Name), func(m *nats.Msg) {
		go p.answerTrigger(m)
	})
	if err != nil {
		return fmt.Errorf("subscribe to %s: %w", ControlSubject(p.cfg.Name), err)
	}
	p.control = sub
	return nil
}

func (p *Pipeline) answerTrigger(m *nats.Msg) {
	ctx, cancel := context.WithTimeout(context.Background(), p.opts.Checkpoint.Timeout)
	defer cancel()
	r, err := p.Trigger(ctx)
	if err != nil {
		r = TriggerResult{Error: err.Error()}
	}
	data, _ := json.Marshal(r)
	_ = m.Respond(data)
}

// TriggerCheckpoint asks the running pipeline of cfg for a checkpoint and
// waits (up to timeout) for its result.
func TriggerCheckpoint(ctx context.Context, cfg *config.Pipeline, logger hclog.Logger, timeout time.Duration) (TriggerResult, error) {
	conn, err := connectRunningWith(ctx, cfg, logger)
	if err != nil {
		return TriggerResult{}, err
	}
	defer conn.Close()
	reply, err := conn.NC.Request(ControlSubject(cfg.Name), nil, timeout)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return TriggerResult{}, fmt.Errorf("%w: pipeline %q: no process answers on %s; start it with wasmstream run", ErrNotRunning, cfg.Name, ControlSubject(cfg.Name))
	case err != nil:
		return TriggerResult{}, fmt.Errorf("pipeline %q: checkpoint request: %w", cfg.Name, err)
	}
	var r TriggerResult
	if err := json.Unmarshal(reply.Data, &r); err != nil {
		return TriggerResult{}, fmt.Errorf("pipeline %q: unreadable answer %q: %w", cfg.Name, reply.Data, err)
	}
	if r.Error != "" {
		return r, fmt.Errorf("pipeline %q: %s", cfg.Name, r.Error)
	}
	return r, nil
}

// connectRunning connects to the server of cfg's running pipeline: its
// URL, or its embedded server when one listens.
func connectRunning(ctx context.Context, cfg *config.Pipeline) (*natsio.Conn, error) {
	return connectRunningWith(ctx, cfg, hclog.NewNullLogger())
}

func connectRunningWith(ctx context.Context, cfg *config.Pipeline, logger hclog.Logger) (*natsio.Conn, error) {
	opts := serverOptions(cfg, logger)
	if opts.URL == "" {
		if !embeddedRunning(opts.EmbeddedPort) {
			return nil, fmt.Errorf("%w: pipeline %q: nothing listens on its embedded server port 127.0.0.1:%d; start it with wasmstream run", ErrNotRunning, cfg.Name, opts.EmbeddedPort)
		}
		opts.URL = fmt.Sprintf("nats://127.0.0.1:%d", opts.EmbeddedPort)
	}
	return natsio.Connect(ctx, opts)
}
