package observe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// ErrListen marks a server that could not start: the address is taken, not
// an address of this machine, or a privileged port.
var ErrListen = errors.New("cannot listen")

// Settings are what a Server is started with.
type Settings struct {
	// Listen is the host:port to listen on (observe.listen); port 0 takes
	// a free one (Server.Addr says which).
	Listen string
	// Gatherer is what /metrics serves, usually NewRegistry's registry with
	// the pipeline's collector.
	Gatherer prometheus.Gatherer
	// Ready is /readyz's check.
	Ready Readiness
	// ErrorLog receives errors of the metrics handler (a collector that
	// failed); nil drops them (the scrape shows them too).
	ErrorLog promhttp.Logger
	// Pipeline is what /api/pipeline answers, encoded as JSON, and what
	// the web UI at / shows; nil serves neither.
	Pipeline PipelineView
}

// Server is the running HTTP endpoint.
type Server struct {
	http *http.Server
	addr net.Addr
	done chan struct{} // closed when Serve returned
}

// A scrape or probe that takes longer than these is a client's problem
// (or a stalled collector's): the server must not keep its goroutines.
const (
	readHeaderTimeout = 5 * time.Second
	writeTimeout      = 30 * time.Second
	closeTimeout      = 2 * time.Second
)

// Start listens on s.Listen and serves in the background until Close.
func Start(s Settings) (*Server, error) {
	ln, err := net.Listen("tcp", s.Listen)
	if err != nil {
		return nil, fmt.Errorf("observe.listen %q: %w: %w; free the port or choose another observe.listen in the pipeline file", s.Listen, ErrListen, err)
	}
	srv := &Server{addr: ln.Addr(), done: make(chan struct{})}
	srv.http = &http.Server{Handler: newMux(s), ReadHeaderTimeout: readHeaderTimeout, WriteTimeout: writeTimeout}
	go func() {
		defer close(srv.done)
		_ = srv.http.Serve(ln) // ErrServerClosed after Close; nothing else ends it
	}()
	return srv, nil
}

func newMux(s Settings) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(s.Gatherer, promhttp.HandlerOpts{ErrorLog: s.ErrorLog, ErrorHandling: promhttp.ContinueOnError}))
	mux.HandleFunc("/healthz", healthz)
	mux.HandleFunc("/readyz", readyz(s.Ready))
	if s.Pipeline != nil {
		mux.HandleFunc("GET /api/pipeline", pipelineAPI(s.Pipeline))
		serveUI(mux)
	}
	return mux
}

// Addr is the address the server listens on, with the port it got.
func (s *Server) Addr() net.Addr { return s.addr }

// URL is the base URL of the endpoint, e.g. "http://127.0.0.1:9464".
func (s *Server) URL() string { return "http://" + s.addr.String() }

// Close stops the server, letting requests in flight finish for a short
// while. Safe on nil.
func (s *Server) Close() {
	if s == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	if err := s.http.Shutdown(ctx); err != nil {
		_ = s.http.Close()
	}
	<-s.done
}
