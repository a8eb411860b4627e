package control

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
)

// AskStatus asks the running pipeline for its Status.
func AskStatus(nc *nats.Conn, pipeline string, timeout time.Duration) (Status, error) {
	var s Status
	if err := request(nc, pipeline, StatusSubject(pipeline), "status", nil, timeout, &s); err != nil {
		return Status{}, err
	}
	return s, nil
}

// AskStop asks the running pipeline to stop and waits (up to timeout) for
// its answer, which comes once the final checkpoint is taken and the run
// returned. A run that failed instead is an error too.
func AskStop(nc *nats.Conn, pipeline string, timeout time.Duration) (StopReply, error) {
	var r StopReply
	if err := request(nc, pipeline, StopSubject(pipeline), "stop", nil, timeout, &r); err != nil {
		return StopReply{}, err
	}
	if r.Error != "" {
		return r, fmt.Errorf("pipeline %q: its run failed while stopping: %s", pipeline, r.Error)
	}
	return r, nil
}

// goneProbe is how long WaitGone waits for one status answer.
const goneProbe = time.Second

// WaitGone waits until no process answers on the pipeline's status
// subject any more, or on a server that went away with it (an embedded
// one lives in the pipeline's process).
func WaitGone(nc *nats.Conn, pipeline string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if nc.IsClosed() || !nc.IsConnected() {
			return nil
		}
		_, err := nc.Request(StatusSubject(pipeline), nil, min(goneProbe, time.Until(deadline)))
		if errors.Is(err, nats.ErrNoResponders) || errors.Is(err, nats.ErrConnectionClosed) {
			return nil
		}
		if err == nil {
			time.Sleep(100 * time.Millisecond)
		}
	}
	return fmt.Errorf("pipeline %q still answers on %s after %s: it is still stopping; wait, or raise --timeout", pipeline, StatusSubject(pipeline), timeout)
}

// Discover lists the wasmstream services that answer a $SRV.INFO request
// within listen, sorted by pipeline: micro discovery has every service
// answer, so the caller cannot know when the last one has.
func Discover(nc *nats.Conn, listen time.Duration) ([]micro.Info, error) {
	subject, err := micro.ControlSubject(micro.InfoVerb, ServiceName, "")
	if err != nil {
		return nil, err
	}
	inbox := nc.NewRespInbox()
	sub, err := nc.SubscribeSync(inbox)
	if err != nil {
		return nil, fmt.Errorf("discover the wasmstream services: %w", err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := nc.PublishRequest(subject, inbox, nil); err != nil {
		return nil, fmt.Errorf("discover the wasmstream services on %s: %w", subject, err)
	}
	infos, err := collectInfos(sub, time.Now().Add(listen))
	sort.Slice(infos, func(i, j int) bool { return infos[i].Metadata[MetaPipeline] < infos[j].Metadata[MetaPipeline] })
	return infos, err
}

func collectInfos(sub *nats.Subscription, deadline time.Time) ([]micro.Info, error) {
	var infos []micro.Info
	for {
		wait := time.Until(deadline)
		if wait <= 0 {
			return infos, nil
		}
		msg, err := sub.NextMsg(wait)
		switch {
		case errors.Is(err, nats.ErrTimeout):
			return infos, nil
		case errors.Is(err, nats.ErrNoResponders) || err == nil && msg.Header.Get("Status") == "503":
			return infos, nil // no service at all: nothing runs
		case err != nil:
			return infos, fmt.Errorf("discover the wasmstream services: %w", err)
		}
		var info micro.Info
		if json.Unmarshal(msg.Data, &info) == nil && info.Name == ServiceName {
			infos = append(infos, info)
		}
	}
}
