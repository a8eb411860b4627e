// Package control is a running pipeline's control plane over NATS
// request-reply: the subjects, the wire types, the server side that hands
// each request to a Handler (the pipeline), and the client side the CLI
// uses. Every request is JSON and every answer is JSON; a request nobody
// answers is ErrNotRunning.
package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/wasmstream/wasmstream/internal/engine/coordinator"
)

// CheckpointSubject is where a running pipeline takes on-demand checkpoint
// requests: a request gets a JSON TriggerResult once the checkpoint is done.
func CheckpointSubject(pipeline string) string {
	return "wasmstream.control." + pipeline + ".checkpoint"
}

// UpgradeSubject is where a running pipeline takes upgrade requests.
func UpgradeSubject(pipeline string) string { return "wasmstream.control." + pipeline + ".upgrade" }

// ErrNotRunning: no running pipeline answered a control request.
var ErrNotRunning = errors.New("pipeline is not running")

// TriggerResult answers an on-demand checkpoint.
type TriggerResult = coordinator.TriggerResult

// UpgradeRequest asks a running pipeline to replace an operator's module:
// Module is a registry reference (NAME, NAME@HASH) or an absolute path.
type UpgradeRequest struct {
	Operator string `json:"operator"`
	Module   string `json:"module"`
}

// UpgradeReply is the pipeline's answer once it checked the new module.
type UpgradeReply struct {
	Accepted bool   `json:"accepted"`
	Error    string `json:"error,omitempty"`
	// Module is the new module's sha256; States the migrated states.
	Module string `json:"module,omitempty"`
	States string `json:"states,omitempty"`
}

// Handler is what a running pipeline does with control requests.
type Handler interface {
	// Trigger takes a checkpoint now (or joins the one in progress).
	Trigger(ctx context.Context) (TriggerResult, error)
	// Upgrade checks an upgrade and, accepted, starts it.
	Upgrade(ctx context.Context, req UpgradeRequest) UpgradeReply
}

// Server answers a pipeline's control subjects until Close.
type Server struct{ subs []*nats.Subscription }

// Serve subscribes the control subjects of pipeline on nc. Each request is
// answered on its own goroutine; a trigger waits at most triggerTimeout.
func Serve(nc *nats.Conn, pipeline string, triggerTimeout time.Duration, h Handler) (*Server, error) {
	s := &Server{}
	handlers := map[string]nats.MsgHandler{
		CheckpointSubject(pipeline): func(m *nats.Msg) { go answerTrigger(m, h, triggerTimeout) },
		UpgradeSubject(pipeline):    func(m *nats.Msg) { go answerUpgrade(m, h) },
	}
	for _, subject := range []string{CheckpointSubject(pipeline), UpgradeSubject(pipeline)} {
		sub, err := nc.Subscribe(subject, handlers[subject])
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("subscribe to %s: %w", subject, err)
		}
		s.subs = append(s.subs, sub)
	}
	// The server knows the subscriptions once the flush returns: a request
	// sent right after Serve (by another connection) finds its responder.
	if err := nc.Flush(); err != nil {
		s.Close()
		return nil, fmt.Errorf("subscribe to the control subjects of %s: %w", pipeline, err)
	}
	return s, nil
}

// Close stops answering.
func (s *Server) Close() {
	if s == nil {
		return
	}
	for _, sub := range s.subs {
		_ = sub.Unsubscribe()
	}
}

// Heartbeat is how often a pipeline tells a waiting trigger that its
// checkpoint is still in progress.
const Heartbeat = time.Second

// goneAfter is how long a client hears nothing before it knows the
// pipeline is gone: the margin covers a loaded machine and a NATS
// reconnect. A variable for tests.
var goneAfter = 10 * Heartbeat

// progressHeader marks a heartbeat, as opposed to the final answer.
const progressHeader = "Wasmstream-Progress"

func answerTrigger(m *nats.Msg, h Handler, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	done := make(chan TriggerResult, 1)
	go func() {
		r, err := h.Trigger(ctx)
		if err != nil {
			r = TriggerResult{Error: err.Error()}
		}
		done <- r
	}()
	beat := time.NewTicker(Heartbeat)
	defer beat.Stop()
	for {
		select {
		case r := <-done:
			respond(m, r)
			return
		case <-beat.C:
			progress := nats.NewMsg(m.Reply)
			progress.Header.Set(progressHeader, "checkpoint in progress")
			_ = m.RespondMsg(progress)
		}
	}
}

func answerUpgrade(m *nats.Msg, h Handler) {
	var req UpgradeRequest
	if err := json.Unmarshal(m.Data, &req); err != nil {
		respond(m, UpgradeReply{Error: fmt.Sprintf("unreadable upgrade request %q: %v", m.Data, err)})
		return
	}
	respond(m, h.Upgrade(context.Background(), req))
}

func respond(m *nats.Msg, v any) {
	data, _ := json.Marshal(v)
	_ = m.Respond(data)
}

// Trigger asks the running pipeline for a checkpoint and waits (up to
// timeout) for its result; a checkpoint that failed is an error too. While
// the checkpoint runs the pipeline sends heartbeats: when they stop (the
// pipeline died mid-checkpoint) Trigger says so at once instead of waiting
// out the timeout.
func Trigger(nc *nats.Conn, pipeline string, timeout time.Duration) (TriggerResult, error) {
	subject := CheckpointSubject(pipeline)
	inbox := nc.NewRespInbox()
	sub, err := nc.SubscribeSync(inbox)
	if err != nil {
		return TriggerResult{}, fmt.Errorf("pipeline %q: checkpoint request: %w", pipeline, err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := nc.PublishRequest(subject, inbox, nil); err != nil {
		return TriggerResult{}, fmt.Errorf("pipeline %q: checkpoint request: %w", pipeline, err)
	}
	deadline := time.Now().Add(timeout)
	for {
		wait := min(time.Until(deadline), goneAfter)
		msg, err := sub.NextMsg(wait)
		switch {
		case errors.Is(err, nats.ErrNoResponders) || err == nil && msg.Header.Get("Status") == "503":
			return TriggerResult{}, fmt.Errorf("%w: pipeline %q: no process answers on %s; start it with wasmstream run", ErrNotRunning, pipeline, subject)
		case errors.Is(err, nats.ErrTimeout) && time.Now().Before(deadline):
			return TriggerResult{}, fmt.Errorf("%w: pipeline %q stopped answering on %s during the checkpoint (no heartbeat for %s): it may have crashed; check its log and run it again",
				ErrNotRunning, pipeline, subject, wait.Round(time.Millisecond))
		case err != nil:
			return TriggerResult{}, fmt.Errorf("pipeline %q: checkpoint request: no result after %s: %w", pipeline, timeout, err)
		case msg.Header.Get(progressHeader) != "":
			continue
		}
		var r TriggerResult
		if err := json.Unmarshal(msg.Data, &r); err != nil {
			return TriggerResult{}, fmt.Errorf("pipeline %q: unreadable answer %q: %w", pipeline, msg.Data, err)
		}
		if r.Error != "" {
			return r, fmt.Errorf("pipeline %q: %s", pipeline, r.Error)
		}
		return r, nil
	}
}

// Upgrade asks the running pipeline to replace an operator's module and
// returns its answer (after its checks, before the restart).
func Upgrade(nc *nats.Conn, pipeline string, req UpgradeRequest, timeout time.Duration) (UpgradeReply, error) {
	data, _ := json.Marshal(req)
	var r UpgradeReply
	if err := request(nc, pipeline, UpgradeSubject(pipeline), "upgrade", data, timeout, &r); err != nil {
		return UpgradeReply{}, err
	}
	return r, nil
}

func request(nc *nats.Conn, pipeline, subject, what string, data []byte, timeout time.Duration, answer any) error {
	msg, err := nc.Request(subject, data, timeout)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return fmt.Errorf("%w: pipeline %q: no process answers on %s; start it with wasmstream run", ErrNotRunning, pipeline, subject)
	case err != nil:
		return fmt.Errorf("pipeline %q: %s request: %w", pipeline, what, err)
	}
	if err := json.Unmarshal(msg.Data, answer); err != nil {
		return fmt.Errorf("pipeline %q: unreadable answer %q: %w", pipeline, msg.Data, err)
	}
	return nil
}
