package crashtest

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmstream/wasmstream/checkpoint"
	"github.com/wasmstream/wasmstream/internal/engine"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/internal/testutil"
)

// pipelineName names every test pipeline: worlds are separated by their
// servers, so the outputs of a run and of its reference carry the same
// Nats-Msg-Ids.
const pipelineName = "crash"

// outputStream stores every test pipeline's outputs.
const outputStream = "OUT"

// pipelineSpec is the operator and the sources of a test pipeline.
type pipelineSpec struct {
	operator    string
	module      string // path of the .wasm
	keyField    string // JSON field holding the record key
	sources     []string
	parallelism int
	// upstream, when set, names operators between the sources and the
	// operator, in order: the same module and key with two tasks each, each
	// reading the internal output "out" of the one before (the first reads
	// the sources) through an exchange stream; the operator reads the
	// last's.
	upstream []string
	// sink is the output sink's block; the zero value is the default
	// (idempotent, ids from stream sequences).
	sink sinkSpec
}

// sinkSpec is how a test pipeline delivers its outputs.
type sinkSpec struct {
	mode      string // config.ModeXxx; "" leaves the default (idempotent)
	batchSize int    // outputs per atomic batch (transactional); 0 leaves the default
	// eventIDHeader, when set, is every source's event_id header: the
	// inputs' own Nats-Msg-Id serves, so idempotent output ids come from
	// the event, not from the stream sequence.
	eventIDHeader string
	// duplicateWindow is the output stream's; "" is 10m, more than any
	// test takes.
	duplicateWindow string
}

// effectiveMode is the sink's mode, the default spelled out.
func (s sinkSpec) effectiveMode() string { return cmp.Or(s.mode, config.DefaultSinkMode) }

// riskSpec is the payment-risk operator on one source, "payments".
func riskSpec(t *testing.T) pipelineSpec {
	return pipelineSpec{operator: "risk", module: testutil.GoGuest(t, "./examples/payment-risk/operator"),
		keyField: "account", sources: []string{"payments"}, parallelism: 1}
}

// sumSpec is the sum2 test operator on one or two sources.
func sumSpec(t *testing.T, sources ...string) pipelineSpec {
	return pipelineSpec{operator: "sum", module: testutil.GoGuest(t, "./internal/testguests/sum2"),
		keyField: "k", sources: sources, parallelism: 1}
}

// world is one pipeline with its own JetStream server and data directory:
// the runs under test and their reference never share one.
type world struct {
	name    string
	srv     *natsServer
	dir     string
	spec    pipelineSpec
	cfgPath string
	cfg     *config.Pipeline
	runs    []*child
	// natsURL is where the pipeline reaches NATS: the server, unless a
	// test put a proxy in front of it (connectThrough).
	natsURL string
	// outageBudget is the pipeline's server.outage_budget; "": the default.
	// Set it before connectThrough, which rewrites the file.
	outageBudget string
}

// newWorld writes the pipeline file, starts the server and creates the
// streams. When the test fails, the output of every run is printed.
func newWorld(t *testing.T, name string, spec pipelineSpec) *world {
	t.Helper()
	w := &world{name: name, srv: startServer(t), dir: t.TempDir(), spec: spec}
	w.natsURL = w.srv.url
	w.cfgPath = filepath.Join(w.dir, "pipeline.hcl")
	if err := os.WriteFile(w.cfgPath, []byte(w.hcl()), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags, err := config.Load(w.cfgPath)
	if err != nil {
		t.Fatalf("load %s: %v\n%v", w.cfgPath, err, diags)
	}
	w.cfg = cfg
	w.srv.createStreams(t, cfg)
	t.Cleanup(func() {
		if t.Failed() {
			for _, c := range w.runs {
				t.Log(c.logTail(200))
			}
		}
	})
	return w
}

// connectThrough makes the pipeline reach NATS at url (a proxy in front of
// the test's server) from its next run on. The test itself, the recorder
// and the streams keep the direct connection.
func (w *world) connectThrough(t *testing.T, url string) {
	t.Helper()
	w.natsURL = url
	if err := os.WriteFile(w.cfgPath, []byte(w.hcl()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (w *world) hcl() string {
	var b strings.Builder
	fmt.Fprintf(&b, "name     = %q\ndata_dir = %q\nserver {\n  url = %q\n", pipelineName, filepath.Join(w.dir, "data"), w.natsURL)
	if w.outageBudget != "" {
		fmt.Fprintf(&b, "  outage_budget = %q\n", w.outageBudget)
	}
	b.WriteString("}\n")
	for _, s := range w.spec.sources {
		fmt.Fprintf(&b, "stream %q {\n  subjects = [%q]\n}\n", inputStream(s), inputSubject(s))
		fmt.Fprintf(&b, "source %q {\n  stream = %q\n", s, inputStream(s))
		if h := w.spec.sink.eventIDHeader; h != "" {
			fmt.Fprintf(&b, "  event_id {\n    header = %q\n  }\n", h)
		}
		b.WriteString("}\n")
	}
	window := cmp.Or(w.spec.sink.duplicateWindow, "10m")
	fmt.Fprintf(&b, "stream %q {\n  subjects         = [\"out.>\"]\n  duplicate_window = %q\n}\n", outputStream, window)
	inputs := quoteList(w.spec.sources)
	for _, u := range w.spec.upstream {
		fmt.Fprintf(&b, "operator %q {\n  module      = %q\n  inputs      = [%s]\n  key {\n    json_field = %q\n  }\n  parallelism = 2\n  internal_outputs = [\"out\"]\n}\n",
			u, w.spec.module, inputs, w.spec.keyField)
		inputs = quoteList([]string{u + ".out"})
	}
	fmt.Fprintf(&b, "operator %q {\n  module      = %q\n  inputs      = [%s]\n  key {\n    json_field = %q\n  }\n  parallelism = %d\n  outputs     = { out = \"results\" }\n}\n",
		w.spec.operator, w.spec.module, inputs, w.spec.keyField, w.spec.parallelism)
	b.WriteString("sink \"results\" {\n  subject = \"out.results\"\n")
	if m := w.spec.sink.mode; m != "" {
		fmt.Fprintf(&b, "  mode    = %q\n", m)
	}
	if n := w.spec.sink.batchSize; n > 0 {
		fmt.Fprintf(&b, "  batch_size = %d\n", n)
	}
	b.WriteString("}\n")
	return b.String()
}

func quoteList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

func inputStream(source string) string  { return "IN_" + strings.ToUpper(source) }
func inputSubject(source string) string { return "in." + source }

// start starts "wasmstream run" on the world's pipeline.
func (w *world) start(t *testing.T, env []string, args ...string) *child {
	t.Helper()
	n := len(w.runs) + 1
	if err := seedCache(w.cfg.DataDir); err != nil {
		t.Logf("seeding the compilation cache: %v", err)
	}
	args = append([]string{"run", w.cfgPath, "--log-format", "json"}, args...)
	c := startChild(t, childOptions{name: fmt.Sprintf("%s run %d", w.name, n), logPath: filepath.Join(w.dir, fmt.Sprintf("run-%02d.log", n)),
		env: env, afterExit: func() { _ = harvestCache(w.cfg.DataDir) }}, args...)
	w.runs = append(w.runs, c)
	return c
}

// idleStop is how long a run waits without input before it stops.
const idleStop = "1s"

// runToCompletion runs the pipeline until it is idle and has checkpointed
// every input, and returns the first run.
func (w *world) runToCompletion(t *testing.T, args ...string) *child {
	t.Helper()
	c := w.startToIdle(t, args...)
	w.complete(t, c)
	return c
}

// startToIdle starts a run that stops once it is idle.
func (w *world) startToIdle(t *testing.T, args ...string) *child {
	t.Helper()
	return w.start(t, nil, append([]string{"--stop-when-idle", idleStop}, args...)...)
}

// complete waits for c, a run started by startToIdle, to succeed. A run
// that stopped before it saw all the input (a start slower than idleStop)
// is followed by another rather than making the test depend on timing.
func (w *world) complete(t *testing.T, c *child) {
	t.Helper()
	c.waitSuccess(t)
	for attempt := 1; !w.covered(t); attempt++ {
		if attempt == 5 {
			t.Fatalf("%s: the newest checkpoint does not cover the input after %d runs to idle", w.name, attempt)
		}
		w.startToIdle(t).waitSuccess(t)
	}
}

// covered reports whether the newest checkpoint's source positions are the
// last sequences of the input streams (and of the exchange stream, when the
// pipeline has one).
func (w *world) covered(t *testing.T) bool {
	t.Helper()
	m := w.manifest(t, w.newest(t))
	for _, s := range m.Sources {
		if s.LastSequence != w.srv.streamLastSeq(t, s.Stream) {
			return false
		}
	}
	return len(m.Sources) == len(w.spec.sources)+len(w.spec.upstream)
}

func (w *world) root() string { return engine.CheckpointRoot(w.cfg) }

// checkpoints lists the completed checkpoints, newest first.
func (w *world) checkpoints(t *testing.T) []uint64 {
	t.Helper()
	ids, err := checkpoint.List(w.root())
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// newest is the id of the newest checkpoint; the test fails without one.
func (w *world) newest(t *testing.T) uint64 {
	t.Helper()
	ids := w.checkpoints(t)
	if len(ids) == 0 {
		t.Fatalf("%s: no checkpoint in %s", w.name, w.root())
	}
	return ids[0]
}

// newestOrZero is the id of the newest checkpoint, 0 when there is none.
func (w *world) newestOrZero(t *testing.T) uint64 {
	t.Helper()
	if ids := w.checkpoints(t); len(ids) > 0 {
		return ids[0]
	}
	return 0
}

func (w *world) manifest(t *testing.T, id uint64) checkpoint.Manifest {
	t.Helper()
	m, err := checkpoint.Read(w.root(), id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// dump is the state of checkpoint id.
func (w *world) dump(t *testing.T, id uint64) []engine.StateEntry {
	t.Helper()
	d, err := engine.DumpCheckpointState(w.root(), id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// finalState is the state of the newest checkpoint.
func (w *world) finalState(t *testing.T) []engine.StateEntry { return w.dump(t, w.newest(t)) }

// publish stores inputs on source's subject.
func (w *world) publish(t *testing.T, source string, inputs []input) {
	t.Helper()
	w.srv.publish(t, inputSubject(source), inputs)
}

// outputs reads every stored output.
func (w *world) outputs(t *testing.T) []storedMsg {
	t.Helper()
	return w.srv.readStream(t, outputStream)
}

// waitOutputs waits until n outputs are stored while c runs.
func (w *world) waitOutputs(t *testing.T, n uint64, c *child) {
	t.Helper()
	w.srv.waitStored(t, outputStream, n, func() string { return c.logTail(60) })
}

// outputID is the Nats-Msg-Id of the first output of input seq of source.
func (w *world) outputID(source string, seq uint64) string {
	return fmt.Sprintf("%s.%s.%s.%d.0", pipelineName, w.spec.operator, source, seq)
}

// eventOutputID is the Nats-Msg-Id of the first output of the input whose
// event id is eventID, for an idempotent sink whose sources declare one.
func (w *world) eventOutputID(source, eventID string) string {
	return fmt.Sprintf("%s.%s.%s.id:%s.0", pipelineName, w.spec.operator, source, eventID)
}

// expectedOutputs lists one output id per stored input of every source:
// the test operators emit exactly one output per accepted record. The ids
// come from the event ids when an idempotent sink has them, else from the
// stream sequences; an at_least_once sink has none to list.
func (w *world) expectedOutputs(t *testing.T) []string {
	t.Helper()
	mode := w.spec.sink.effectiveMode()
	if mode == config.ModeAtLeastOnce {
		t.Fatalf("%s: an at_least_once sink's outputs carry no ids to expect; compare payloads", w.name)
	}
	byEvent := mode == config.ModeIdempotent && w.spec.sink.eventIDHeader != ""
	var ids []string
	for _, s := range w.spec.sources {
		if byEvent {
			for _, in := range w.srv.readStream(t, inputStream(s)) {
				ids = append(ids, w.eventOutputID(s, in.header.Get(w.spec.sink.eventIDHeader)))
			}
			continue
		}
		last := w.srv.streamLastSeq(t, inputStream(s))
		for seq := uint64(1); seq <= last; seq++ {
			ids = append(ids, w.outputID(s, seq))
		}
	}
	return ids
}
