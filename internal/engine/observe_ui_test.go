package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmstream/wasmstream/internal/testutil"
)

// updateScreenshot asks TestWebUIOfARun to save its screenshot as
// docs/ui.png (scripts/ui-screenshot.sh sets it).
const updateScreenshot = "UPDATE_UI_SCREENSHOT"

// TestWebUIOfARun runs a pipeline with the endpoint, feeds it records of
// which one the guest rejects and one has no key, takes two checkpoints
// and renders the web UI in headless Chromium: the numbers the page shows
// must be those of /metrics and of the run (records in, processed, dead
// letters by reason and the newest ones, checkpoint ids and sizes, the
// module's hash). Then it takes a screenshot of the page.
func TestWebUIOfARun(t *testing.T) {
	browser := chromium(t)
	setup := newSumSetup(t, 2)
	cfg := observedSums(t, setup, "")
	obs, err := StartObserver(cfg, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// On-demand checkpoints only, so that the ids stay put while the page renders.
	p, err := Open(ctx, cfg, quietOptions(t, Options{Observer: obs, StopWhenIdle: -1}))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Run(runCtx) }()

	payloads, good := uiPayloads()
	if err := publishRaw(p.Reach(), sumSubjectA, payloads...); err != nil {
		t.Fatal(err)
	}
	scrapeUntil(t, obs, func(f metricFamilies) bool {
		return f.sum("wasmstream_task_records_processed_total", nil) == float64(good) && f.sum("wasmstream_dead_letters_total", nil) == 2
	})
	for range 2 {
		if r, err := p.Trigger(ctx); err != nil || r.Error != "" {
			t.Fatalf("checkpoint: %v %s", err, r.Error)
		}
	}
	families := scrape(t, obs)
	dom := renderPage(t, browser, obs.URL()+"/")
	checkRenderedRun(t, dom, families, len(payloads), good)
	checkRenderedModule(t, dom, setup.module)
	checkAPIMatchesPage(t, obs, dom)

	shot := filepath.Join(t.TempDir(), "ui.png")
	if os.Getenv(updateScreenshot) == "1" {
		shot = filepath.Join(testutil.ModuleRoot(t), "docs", "ui.png")
	}
	screenshot(t, browser, obs.URL()+"/", shot)
	t.Logf("screenshot of the web UI: %s", shot)

	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// uiPayloads are the records the UI test publishes to source a: one the
// guest rejects, one without a key and the input-0 records of sumRecords;
// good counts those the guest processes.
func uiPayloads() (payloads []string, good int) {
	payloads = []string{`{"k":"no-value"}`, `{"v":1}`}
	for _, r := range sumRecords(40, 7, 1) {
		if r.input == 0 {
			payloads = append(payloads, string(r.json()))
			good++
		}
	}
	return payloads, good
}

// checkRenderedRun compares the page's numbers with the scrape's and the run's.
func checkRenderedRun(t *testing.T, dom renderedDOM, f metricFamilies, read, good int) {
	t.Helper()
	if _, name, _ := dom.value("pipeline-name"); name != "sums" {
		t.Errorf("the page shows pipeline %q, want sums", name)
	}
	if n := dom.count("data-state", "ready"); n != 1 {
		t.Errorf("the page does not show the pipeline ready (data-state=\"ready\" %d times)", n)
	}
	lastID := f.sum("wasmstream_checkpoint_last_id", nil)
	for _, c := range []struct {
		id   string
		want float64
	}{
		{"source-a-records_in", float64(read)},
		{"source-a-records_in", f.sum("wasmstream_source_records_read_total", map[string]string{"source": "a"})},
		{"source-b-records_in", 0},
		{"source-a-pending", f.sum("wasmstream_source_pending_records", map[string]string{"source": "a"})},
		{"edge-source:a-operator:sum", float64(read)},
		{"operator-sum-records_processed", float64(good)},
		{"operator-sum-records_processed", f.sum("wasmstream_task_records_processed_total", nil)},
		{"operator-sum-outputs_emitted", f.sum("wasmstream_task_outputs_emitted_total", nil)},
		{"operator-sum-dead_letters", 2},
		{"dead-sum-rejected", f.sum("wasmstream_dead_letters_total", map[string]string{"reason": "rejected"})},
		{"dead-sum-key", f.sum("wasmstream_dead_letters_total", map[string]string{"reason": "key"})},
		{"checkpoints-completed", f.sum("wasmstream_checkpoints_completed_total", nil)},
		{"checkpoints-failed", 0},
		{"checkpoints-last-id", lastID},
		{"checkpoints-last-id", 2},
		{fmt.Sprintf("checkpoint-%.0f-bytes_total", lastID), f.sum("wasmstream_checkpoint_last_size_bytes", nil)},
		{fmt.Sprintf("checkpoint-%.0f-bytes_new", lastID), f.sum("wasmstream_checkpoint_last_new_bytes", nil)},
	} {
		checkRenderedNumber(t, dom, c.id, c.want)
	}
	for id := 1; id <= int(lastID); id++ {
		if dom.count("data-checkpoint", strconv.Itoa(id)) != 1 {
			t.Errorf("the checkpoint history does not list checkpoint %d", id)
		}
	}
	if n := strings.Count(string(dom), "data-stream-sequence="); n != 2 {
		t.Errorf("the page lists %d newest dead letters, want the 2 of the run", n)
	}
	if !strings.Contains(string(dom), "key: ") {
		t.Error("the newest dead letters do not show the key failure's error")
	}
}

// checkRenderedNumber checks the element's data-value, and that its text
// shows the same number (the page groups digits with commas).
func checkRenderedNumber(t *testing.T, dom renderedDOM, id string, want float64) {
	t.Helper()
	value, text, ok := dom.value(id)
	if !ok {
		t.Errorf("the page has no element %q", id)
		return
	}
	got, err := strconv.ParseFloat(value, 64)
	if err != nil || got != want {
		t.Errorf("%s: the page has data-value %q, want %v", id, value, want)
	}
	if shown := strings.ReplaceAll(text, ",", ""); !strings.HasPrefix(id, "edge-") && !strings.Contains(id, "bytes") && shown != value {
		t.Errorf("%s: the page shows %q for the value %s", id, text, value)
	}
}

// checkRenderedModule checks that the page names the module by the hash
// of its file.
func checkRenderedModule(t *testing.T, dom renderedDOM, module string) {
	t.Helper()
	wasm, err := os.ReadFile(module)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(wasm)
	if value, _, _ := dom.value("operator-sum-module_sha256"); value != hex.EncodeToString(sum[:]) {
		t.Errorf("the page shows module sha256 %q, want %x", value, sum)
	}
}

// checkAPIMatchesPage checks /api/pipeline itself: valid JSON whose
// counters are those the page rendered (nothing moves between the two).
func checkAPIMatchesPage(t *testing.T, obs *Observer, dom renderedDOM) {
	t.Helper()
	code, body := httpGet(t, obs.URL()+"/api/pipeline")
	if code != http.StatusOK {
		t.Fatalf("/api/pipeline: %d %s", code, body)
	}
	var v pipelineView
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("/api/pipeline is not the pipeline view: %v\n%s", err, body)
	}
	checkAPIDocumented(t, body)
	if len(v.Sources) != 2 || len(v.Operators) != 1 || len(v.Sinks) != 1 || len(v.Edges) != 3 {
		t.Errorf("/api/pipeline graph: %d sources, %d operators, %d sinks, %d edges; want 2, 1, 1, 3",
			len(v.Sources), len(v.Operators), len(v.Sinks), len(v.Edges))
	}
	if len(v.Operators) == 1 {
		checkRenderedNumber(t, dom, "operator-sum-records_processed", float64(v.Operators[0].Processed))
	}
	if len(v.Checkpoints.History) == 0 || v.Checkpoints.History[0].ID != v.Checkpoints.LastID {
		t.Errorf("/api/pipeline checkpoint history %+v does not start with the last checkpoint %d", v.Checkpoints.History, v.Checkpoints.LastID)
	}
}

// checkAPIDocumented checks that every field of an /api/pipeline answer
// is in docs/ui.md's example: the doc shows the whole shape.
func checkAPIDocumented(t *testing.T, body string) {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(t), "docs", "ui.md"))
	if err != nil {
		t.Fatal(err)
	}
	var answer any
	if err := json.Unmarshal([]byte(body), &answer); err != nil {
		t.Fatal(err)
	}
	for field := range jsonFields(answer, nil) {
		if !strings.Contains(string(doc), `"`+field+`":`) {
			t.Errorf("/api/pipeline has the field %q, which docs/ui.md's example does not show", field)
		}
	}
}

// jsonFields adds the object keys anywhere in v to into, except the keys
// of maps keyed by data (state names, reasons, output names).
func jsonFields(v any, into map[string]bool) map[string]bool {
	if into == nil {
		into = map[string]bool{}
	}
	switch v := v.(type) {
	case map[string]any:
		for k, child := range v {
			into[k] = true
			if k != "state_versions" && k != "dead_letters_by_reason" && k != "outputs" {
				jsonFields(child, into)
			}
		}
	case []any:
		for _, child := range v {
			jsonFields(child, into)
		}
	}
	return into
}

// checkAPIWhileNATSAway checks that /api/pipeline answers while NATS is
// away: not ready with the reason, the sources' lag unknown rather than
// made up, and the dead letters' read error.
func checkAPIWhileNATSAway(t *testing.T, obs *Observer) {
	t.Helper()
	code, body := httpGet(t, obs.URL()+"/api/pipeline")
	var v pipelineView
	if code != http.StatusOK || json.Unmarshal([]byte(body), &v) != nil {
		t.Fatalf("/api/pipeline while NATS is away: %d %s", code, body)
	}
	if v.State != "not_ready" || !strings.Contains(v.Reason, "not connected to NATS") {
		t.Errorf("/api/pipeline while NATS is away: state %q (%s), want not_ready naming NATS", v.State, v.Reason)
	}
	for _, s := range v.Sources {
		if s.Pending != nil {
			t.Errorf("/api/pipeline while NATS is away: source %s pending %d, want null (unknown)", s.Name, *s.Pending)
		}
	}
	if v.DeadLetters.ReadError == "" {
		t.Error("/api/pipeline while NATS is away does not say the dead letters could not be read")
	}
}
