package observe

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// get returns the status and body of url.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// TestServerEndpoints: /healthz is 200 whatever the readiness, /readyz
// follows the check with its reason, /metrics serves the registry's own
// collectors and the caller's, and nothing of the default registry.
func TestServerEndpoints(t *testing.T) {
	var why atomic.Value
	why.Store("restoring checkpoint 3")
	reg := NewRegistry()
	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "test_things_total", Help: "Things."}, func() float64 { return 7 }))
	prometheus.MustRegister(prometheus.NewCounter(prometheus.CounterOpts{Name: "test_default_registry_total", Help: "Must not be served."}))
	srv, err := Start(Settings{Listen: "127.0.0.1:0", Gatherer: reg, Ready: func() string { return why.Load().(string) }})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	if code, body := get(t, srv.URL()+"/healthz"); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/healthz: %d %q, want 200 ok", code, body)
	}
	if code, body := get(t, srv.URL()+"/readyz"); code != http.StatusServiceUnavailable || body != "not ready: restoring checkpoint 3\n" {
		t.Errorf("/readyz before ready: %d %q, want 503 with the reason", code, body)
	}
	why.Store("")
	if code, body := get(t, srv.URL()+"/readyz"); code != http.StatusOK || body != "ready\n" {
		t.Errorf("/readyz when ready: %d %q, want 200 ready", code, body)
	}
	code, body := get(t, srv.URL()+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	for _, want := range []string{"test_things_total 7", "go_goroutines ", "process_cpu_seconds_total "} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics has no %q", want)
		}
	}
	if strings.Contains(body, "test_default_registry_total") {
		t.Error("/metrics serves the default registry")
	}
}

// TestServerPortTaken: a second server on a taken port fails at start with
// an error that names observe.listen and the fix.
func TestServerPortTaken(t *testing.T) {
	first, err := Start(Settings{Listen: "127.0.0.1:0", Gatherer: NewRegistry(), Ready: func() string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	second, err := Start(Settings{Listen: first.Addr().String(), Gatherer: NewRegistry(), Ready: func() string { return "" }})
	if err == nil {
		second.Close()
		t.Fatal("a second server started on a taken port")
	}
	if !errors.Is(err, ErrListen) || !strings.Contains(err.Error(), "observe.listen \""+first.Addr().String()+"\"") ||
		!strings.Contains(err.Error(), "choose another observe.listen") {
		t.Errorf("error %q does not name observe.listen, the address and the fix", err)
	}
}

// TestServerClose: after Close the port is free again, and Close on nil
// is a no-op.
func TestServerClose(t *testing.T) {
	srv, err := Start(Settings{Listen: "127.0.0.1:0", Gatherer: NewRegistry(), Ready: func() string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	addr := srv.Addr().String()
	srv.Close()
	again, err := Start(Settings{Listen: addr, Gatherer: NewRegistry(), Ready: func() string { return "" }})
	if err != nil {
		t.Fatalf("port %s not free after Close: %v", addr, err)
	}
	again.Close()
	(*Server)(nil).Close()
}
