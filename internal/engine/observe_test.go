package engine

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// observedSums is the sum pipeline with a TTL on one state (so that the
// TTL metrics exist) and the endpoint on a free loopback port; extra goes
// at the top of the file (a server block, say).
func observedSums(t *testing.T, s sumSetup, extra string) *config.Pipeline {
	t.Helper()
	text := s.load(t).Text
	for old, repl := range map[string]string{
		`  key { json_field = "k" }`: "  key { json_field = \"k\" }\n  state \"sum-0\" { ttl = \"1h\" }",
		"\nname     = \"sums\"":      "\nname     = \"sums\"\nobserve { listen = \"127.0.0.1:0\" }\n" + extra,
	} {
		if !strings.Contains(text, old) {
			t.Fatalf("the sum pipeline has no %q", old)
		}
		text = strings.Replace(text, old, repl, 1)
	}
	if extra != "" {
		text = strings.Replace(text, fmt.Sprintf("server { embedded_port = %d }\n", s.port), "", 1)
	}
	path := filepath.Join(t.TempDir(), "pipeline.hcl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestMetricsOfARun runs a pipeline with the endpoint, feeds it records of
// which one the guest rejects and one has no key, and checks the scrape:
// the records read, processed and dead-lettered by reason, a completed
// checkpoint, and every metric docs/metrics.md lists, with its type. It
// follows /readyz through the run: not ready before Open (restoring), ready
// once open, not ready once stopped and once closed.
func TestMetricsOfARun(t *testing.T) {
	cfg := observedSums(t, newSumSetup(t, 2), "")
	obs, err := StartObserver(cfg, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	wantReady(t, obs, false, "starting")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := Open(ctx, cfg, quietOptions(t, Options{Observer: obs, StopWhenIdle: -1, Checkpoint: CheckpointOptions{Interval: 500 * time.Millisecond}}))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	wantReady(t, obs, true, "")

	recs := sumRecords(40, 7, 1)
	good := 0
	payloads := []string{`{"k":"no-value"}`, `{"v":1}`} // the guest rejects the first; the second has no key
	for _, r := range recs {
		if r.input == 0 {
			payloads = append(payloads, string(r.json()))
			good++
		}
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Run(runCtx) }()
	if err := publishRaw(p.Reach(), sumSubjectA, payloads...); err != nil {
		t.Fatal(err)
	}
	// Ready too: readiness needs a checkpoint younger than three intervals,
	// which a loaded machine can miss for a moment (CI did).
	families := scrapeUntil(t, obs, func(f metricFamilies) bool {
		return f.sum("wasmstream_task_records_processed_total", nil) == float64(good) && f.sum("wasmstream_checkpoints_completed_total", nil) >= 1 &&
			f.sum("wasmstream_pipeline_ready", nil) == 1 && sinkSettled(f, "sums")
	})
	checkRunMetrics(t, families, len(payloads))
	checkDocumentedMetrics(t, families)

	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	wantReady(t, obs, false, "stopped")
	p.Close()
	wantReady(t, obs, false, "no pipeline open")
}

func checkRunMetrics(t *testing.T, f metricFamilies, read int) {
	t.Helper()
	a := map[string]string{"source": "a"}
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"wasmstream_source_records_read_total", a, float64(read)},
		{"wasmstream_source_records_read_total", map[string]string{"source": "b"}, 0},
		{"wasmstream_source_pending_records", a, 0},
		{"wasmstream_dead_letters_total", map[string]string{"operator": "sum", "reason": "rejected"}, 1},
		{"wasmstream_dead_letters_total", map[string]string{"operator": "sum", "reason": "key"}, 1},
		{"wasmstream_dead_letters_total", map[string]string{"operator": "sum", "reason": "trap"}, 0},
		{"wasmstream_checkpoints_failed_total", nil, 0},
		{"wasmstream_task_instance_restarts_total", nil, 0},
		{"wasmstream_pipeline_ready", nil, 1},
		{"wasmstream_nats_connected", nil, 1},
	} {
		if got := f.sum(c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if got := f.sum("wasmstream_source_records_read_total", map[string]string{"pipeline": "sums", "stream": "SUMA"}); got != float64(read) {
		t.Errorf("records read of pipeline sums, stream SUMA = %v, want %d", got, read)
	}
	emitted, published := f.sum("wasmstream_task_outputs_emitted_total", nil), f.sum("wasmstream_sink_published_total", nil)
	if emitted == 0 || published != emitted+2 { // the outputs and the two dead letters
		t.Errorf("outputs emitted %v, sink published %v: want every output and the 2 dead letters published", emitted, published)
	}
	checkSinkMetrics(t, f, emitted)
	if n := f.histogramCount("wasmstream_task_batch_duration_seconds"); n == 0 {
		t.Error("no guest batch observed")
	}
	if n := f.histogramCount("wasmstream_checkpoint_duration_seconds"); n != uint64(f.sum("wasmstream_checkpoints_completed_total", nil)) {
		t.Errorf("checkpoint duration observed %d times, completed counter %v", n, f.sum("wasmstream_checkpoints_completed_total", nil))
	}
	if f.sum("wasmstream_state_cache_hits_total", nil)+f.sum("wasmstream_state_cache_misses_total", nil) == 0 {
		t.Error("no state read counted")
	}
}

// checkSinkMetrics checks the sink "sums" of the run: every output
// emitted went to it, was acknowledged and none waits or was sent again;
// the dead letters are the publisher's, not the sink's.
func checkSinkMetrics(t *testing.T, f metricFamilies, emitted float64) {
	t.Helper()
	sums := map[string]string{"sink": "sums"}
	for _, c := range []struct {
		name string
		want float64
	}{
		{"wasmstream_sink_outputs_published_total", emitted},
		{"wasmstream_sink_outputs_acked_total", emitted},
		{"wasmstream_sink_outputs_pending", 0},
		{"wasmstream_sink_outputs_resent_total", 0},
	} {
		if got := f.sum(c.name, sums); got != c.want {
			t.Errorf("%s{sink=\"sums\"} = %v, want %v (the outputs emitted)", c.name, got, c.want)
		}
	}
}

// sinkSettled reports whether every output published to sink is
// acknowledged: acknowledgements arrive after the records are processed.
func sinkSettled(f metricFamilies, sink string) bool {
	l := map[string]string{"sink": sink}
	return f.sum("wasmstream_sink_outputs_acked_total", l) == f.sum("wasmstream_sink_outputs_published_total", l) &&
		f.sum("wasmstream_sink_outputs_acked_total", nil) == f.sum("wasmstream_task_outputs_emitted_total", nil)
}

// documentedMetric is a row of docs/metrics.md's tables:
// | `name` | type | labels | meaning |.
var documentedMetric = regexp.MustCompile("^\\| `(wasmstream_[a-z_]+)` \\| (counter|gauge|histogram) \\|")

// checkDocumentedMetrics checks that every metric of docs/metrics.md is in
// the scrape with the documented type, and that every wasmstream_ metric
// of the scrape is documented: the doc stays true both ways.
func checkDocumentedMetrics(t *testing.T, f metricFamilies) {
	t.Helper()
	doc, err := os.Open(filepath.Join(testutil.ModuleRoot(t), "docs", "metrics.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	documented := map[string]bool{}
	for sc := bufio.NewScanner(doc); sc.Scan(); {
		m := documentedMetric.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		documented[m[1]] = true
		fam, ok := f[m[1]]
		switch {
		case !ok:
			t.Errorf("docs/metrics.md lists %s, which the scrape does not have", m[1])
		case !strings.EqualFold(fam.GetType().String(), m[2]):
			t.Errorf("docs/metrics.md says %s is a %s; the scrape has a %s", m[1], m[2], fam.GetType())
		}
	}
	if len(documented) < 20 {
		t.Fatalf("found %d metrics in docs/metrics.md's tables; is the table format `| `name` | type | labels | meaning |`?", len(documented))
	}
	for name := range f {
		if strings.HasPrefix(name, "wasmstream_") && !documented[name] {
			t.Errorf("the scrape has %s, which docs/metrics.md does not list", name)
		}
	}
}

// metricFamilies is a parsed scrape.
type metricFamilies map[string]*dto.MetricFamily

// sum adds the values of the samples of name whose labels include labels.
func (f metricFamilies) sum(name string, labels map[string]string) float64 {
	total := 0.0
	for _, m := range f[name].GetMetric() {
		if hasLabels(m, labels) {
			total += m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return total
}

func (f metricFamilies) histogramCount(name string) uint64 {
	var n uint64
	for _, m := range f[name].GetMetric() {
		n += m.GetHistogram().GetSampleCount()
	}
	return n
}

func hasLabels(m *dto.Metric, want map[string]string) bool {
	found := 0
	for _, l := range m.GetLabel() {
		if v, ok := want[l.GetName()]; ok && v == l.GetValue() {
			found++
		}
	}
	return found == len(want)
}

// scrape reads and parses the endpoint's /metrics.
func scrape(t *testing.T, obs *Observer) metricFamilies {
	t.Helper()
	code, body := httpGet(t, obs.URL()+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: status %d: %s", code, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	f, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("/metrics is not the Prometheus text format: %v", err)
	}
	return f
}

// scrapeUntil scrapes until done holds; the test fails if it never does.
func scrapeUntil(t *testing.T, obs *Observer, done func(metricFamilies) bool) metricFamilies {
	t.Helper()
	var f metricFamilies
	waitFor(t, "the scrape to show the run's counters", func() bool {
		f = scrape(t, obs)
		return done(f)
	})
	return f
}

// waitFor polls cond; the test fails when it does not hold within a
// minute (a bound for a loaded machine, not a measurement).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
	}
}

// wantReady checks /readyz now: its status, and that a 503's reason
// contains why.
func wantReady(t *testing.T, obs *Observer, ready bool, why string) {
	t.Helper()
	code, body := httpGet(t, obs.URL()+"/readyz")
	if ready && code != http.StatusOK || !ready && (code != http.StatusServiceUnavailable || !strings.Contains(body, why)) {
		t.Errorf("/readyz: %d %q; want ready %v (reason containing %q)", code, body, ready, why)
	}
	if code, _ := httpGet(t, obs.URL()+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz: %d, want 200 while the process runs", code)
	}
}

func httpGet(t *testing.T, url string) (int, string) {
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
