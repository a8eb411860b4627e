package engine

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go/micro"

	"github.com/wasmstream/wasmstream/internal/engine/control"
)

// BuildVersion is the version a run's service reports: main sets it from
// the binary's build (cmd/wasmstream/version.go) before it runs anything.
var BuildVersion = "dev"

// The throughput "now" is the rate over the ring of samples: one a second,
// eleven of them, so the last ten seconds.
const (
	rateInterval = time.Second
	rateSamples  = 11
)

// runService is a run's NATS micro service (control.ServiceName): its
// status and stop endpoints and the discovery that lists it
// (`wasmstream pipelines`, `status`, `stop`). It lives as long as Run.
type runService struct {
	p       *Pipeline
	svc     micro.Service
	started time.Time
	host    string
	// runCtx is Run's context: stopRun ends it as SIGTERM ends the
	// process's, so a stop request takes the same final checkpoint.
	runCtx  context.Context
	stopRun context.CancelFunc

	mu       sync.Mutex
	rate     *rateRing
	finished bool
	waiting  []micro.Request   // stop requests answered once Run returned
	result   control.StopReply // set when finished

	quit     chan struct{}
	sampling sync.WaitGroup
}

// startService registers the service of a run (none for a cluster part,
// whose cluster has its own status, nor for an exec without NATS) and
// returns the context Run must stop on.
func (p *Pipeline) startService(ctx context.Context) (context.Context, *runService, error) {
	if p.opts.Cluster != nil || p.exec != nil || p.conn == nil || p.conn.NC == nil {
		return ctx, nil, nil
	}
	runCtx, stopRun := context.WithCancel(ctx)
	s := &runService{p: p, started: time.Now(), runCtx: runCtx, stopRun: stopRun, rate: newRateRing(rateSamples), quit: make(chan struct{})}
	s.host, _ = os.Hostname()
	if err := s.register(); err != nil {
		stopRun()
		return ctx, nil, fmt.Errorf("pipeline %q: register the %s service on NATS: %w", p.cfg.Name, control.ServiceName, err)
	}
	s.sampling.Add(1)
	go s.sample()
	return runCtx, s, nil
}

func (s *runService) register() error {
	name := s.p.cfg.Name
	svc, err := micro.AddService(s.p.conn.NC, micro.Config{
		Name: control.ServiceName, Version: serviceVersion(BuildVersion),
		Description: "a wasmstream run: status and graceful stop of pipeline " + name,
		Metadata: map[string]string{
			control.MetaPipeline: name, control.MetaHost: s.host, control.MetaDataDir: s.p.cfg.DataDir,
			control.MetaPID: strconv.Itoa(os.Getpid()), control.MetaVersion: BuildVersion,
		},
	})
	if err != nil {
		return err
	}
	s.svc = svc
	endpoints := []struct {
		name, subject string
		handle        micro.HandlerFunc
	}{
		{"status", control.StatusSubject(name), s.answerStatus},
		{"stop", control.StopSubject(name), s.answerStop},
	}
	for _, e := range endpoints {
		if err := svc.AddEndpoint(e.name, e.handle, micro.WithEndpointSubject(e.subject)); err != nil {
			_ = svc.Stop()
			return err
		}
	}
	// A request sent right after Run started (by another connection) finds
	// its responder once the server knows the subscriptions.
	return s.p.conn.NC.Flush()
}

// semver is the version micro accepts (its own expression, semver 2.0):
// a version it refuses would fail every run.
var semver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// serviceVersion is v as micro needs it (semver, no "v"); a build without
// one ("dev", a commit) reports 0.0.0 and keeps v in the metadata.
func serviceVersion(v string) string {
	if len(v) > 0 && v[0] == 'v' {
		v = v[1:]
	}
	if semver.MatchString(v) {
		return v
	}
	return "0.0.0"
}

func (s *runService) sample() {
	defer s.sampling.Done()
	tick := time.NewTicker(rateInterval)
	defer tick.Stop()
	s.note(time.Now())
	for {
		select {
		case <-s.quit:
			return
		case now := <-tick.C:
			s.note(now)
		}
	}
}

func (s *runService) note(now time.Time) {
	read := s.p.Stats().Read
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rate.add(now, read)
}

// answerStatus answers on its own goroutine: asking the server for the
// sources' backlog takes round trips that must not hold up the endpoint.
func (s *runService) answerStatus(req micro.Request) {
	go func() { _ = req.RespondJSON(s.status()) }()
}

// answerStop ends Run's context and keeps the request until Run returned
// (finish), so that the answer names the final checkpoint.
func (s *runService) answerStop(req micro.Request) {
	s.mu.Lock()
	if s.finished {
		r := s.result
		s.mu.Unlock()
		_ = req.RespondJSON(r)
		return
	}
	s.waiting = append(s.waiting, req)
	s.mu.Unlock()
	s.p.logger.Info("stop requested over NATS", "subject", req.Subject())
	s.stopRun()
}

// finish answers the waiting stop requests with runErr and the last
// checkpoint, then leaves NATS. Safe on nil (no service).
func (s *runService) finish(runErr error) {
	if s == nil {
		return
	}
	close(s.quit)
	s.sampling.Wait()
	reply := control.StopReply{Pipeline: s.p.cfg.Name, FinalCheckpoint: s.lastCheckpoint()}
	if runErr != nil {
		reply.Error = runErr.Error()
	}
	s.mu.Lock()
	s.finished, s.result = true, reply
	waiting := s.waiting
	s.mu.Unlock()
	for _, req := range waiting {
		_ = req.RespondJSON(reply)
	}
	_ = s.svc.Stop()
	// The answers must reach the server before the connection closes: an
	// embedded server ends with this process.
	_ = s.p.conn.NC.Flush()
	s.stopRun()
}
