package observe

import (
	"net/http"
)

// Readiness says why the pipeline is not ready to do its work, or "" when
// it is. It is called on every /readyz request, from the HTTP server's
// goroutines: it must be safe for concurrent use and quick.
type Readiness func() (notReady string)

// healthz answers 200 while the process serves HTTP at all: a liveness probe
// that restarts the process only when it is wedged, never because NATS is
// away (a restart would not bring NATS back).
func healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

// readyz answers 200 when ready says so, else 503 with the reason: a
// readiness probe and a short answer for a human with curl.
func readyz(ready Readiness) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if why := ready(); why != "" {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("not ready: " + why + "\n"))
			return
		}
		_, _ = w.Write([]byte("ready\n"))
	}
}
