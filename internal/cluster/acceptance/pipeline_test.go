package acceptance

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	clusterworker "github.com/wasmstream/wasmstream/internal/cluster/worker"
	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// The acceptance pipeline: source "events" on stream EVENTS, operator
// "sum" (internal/testguests/sum2) keyed by the JSON field "k" with 4
// tasks over the default 128 key groups, sink "results" into stream OUT,
// idempotent unless a test asks for a transactional one. Output ids are
// built from these names (docs/sinks.md), and both modes use the same
// position-based ids.
const (
	pipelineName  = "accept"
	sourceName    = "events"
	operatorName  = "sum"
	sinkName      = "results"
	inputStream   = "EVENTS"
	inputSubject  = "events.in"
	outputStream  = "OUT"
	outputSubject = "out.results"
	parallelism   = 4
	// maxParallelism is the operator's key groups (the default).
	maxParallelism = 128
	replicas       = 3
	// outputWindow is the output stream's duplicate window: longer than
	// any test, so every replayed output is dropped by id.
	outputWindow = 10 * time.Minute
)

// The cluster block's timeouts: a worker is suspected after 2 s of missed
// heartbeats and the coordinator lease lasts 6 s, so a failover fits in
// seconds (the defaults are 5 s and 15 s, design §5.0). The checkpoint
// interval bounds what a takeover replays.
const (
	workerTimeout      = "2s"
	leaseTTL           = "6s"
	checkpointInterval = "2s"
)

// pipelineFile is one worker's pipeline file. The workers' files differ
// only in data_dir: each worker keeps its own Pebble store.
type pipelineFile struct {
	urls    string // the cluster's client URLs, comma-separated
	dataDir string
	module  string // path of sum2.wasm
	// mode is the sink's mode: config.ModeIdempotent when empty.
	mode string
	// tasks is the operator's parallelism: parallelism when 0.
	tasks int
	// graph puts the stages graphStages before the operator: a three-stage
	// dataflow graph whose edges are exchange streams.
	graph bool
	// route routes the source (config.Source.Route): one worker reads it
	// and publishes into an exchange stream of the operator reading it.
	route bool
}

// graphStages are the stages of a graph pipeline before operator sum, in
// order: sum2 each, keyed by "k" with graphStageTasks tasks, each reading
// the internal output "out" of the one before (the first reads the
// source) through an exchange stream; sum reads the last one's. sum2
// passes "k" and "v" on and sums "v", so every stage emits what the first
// does, and sum's outputs have the one-stage model's payloads (their ids
// name exchange sequences: checkGraphOutputs).
var graphStages = []string{"pre", "mid"}

// graphStageTasks is the parallelism of each of graphStages.
const graphStageTasks = 2

// operatorInput is what operator sum reads: the source, or in a graph the
// last stage's output.
func (p pipelineFile) operatorInput() string {
	if p.graph {
		return graphStages[len(graphStages)-1] + ".out"
	}
	return sourceName
}

// stagesHCL declares graphStages (none unless graph).
func (p pipelineFile) stagesHCL() string {
	if !p.graph {
		return ""
	}
	var b strings.Builder
	input := sourceName
	for _, s := range graphStages {
		fmt.Fprintf(&b, "operator %q {\n  module = %q\n  inputs = [%q]\n  key {\n    json_field = \"k\"\n  }\n  parallelism      = %d\n  internal_outputs = [\"out\"]\n}\n\n",
			s, p.module, input, graphStageTasks)
		input = s + ".out"
	}
	return b.String()
}

// operatorTasks is the operator's parallelism the file declares.
func (p pipelineFile) operatorTasks() int {
	if p.tasks == 0 {
		return parallelism
	}
	return p.tasks
}

// sinkMode is the mode the file declares.
func (p pipelineFile) sinkMode() string { return orIdempotent(p.mode) }

func orIdempotent(mode string) string {
	if mode == "" {
		return config.ModeIdempotent
	}
	return mode
}

func (p pipelineFile) hcl() string {
	return fmt.Sprintf(`name     = %q
data_dir = %q

server {
  url = %q
}

cluster {
  worker_timeout = %q
  lease_ttl      = %q
}

checkpoint {
  interval = %q
}

stream %q {
  subjects = [%q]
  replicas = %d
}

stream %q {
  subjects         = [%q]
  duplicate_window = %q
  replicas         = %d
}

source %q {
  stream  = %q
  subject = %q
  route   = %t
}

%soperator %q {
  module = %q
  inputs = [%q]
  key {
    json_field = "k"
  }
  parallelism = %d
  outputs     = { out = %q }
}

sink %q {
  subject = %q
  mode    = %q
}
`, pipelineName, p.dataDir, p.urls, workerTimeout, leaseTTL, checkpointInterval,
		inputStream, inputSubjects, replicas,
		outputStream, outputSubjects, outputWindow.String(), replicas,
		sourceName, inputStream, inputSubject, p.route,
		p.stagesHCL(), operatorName, p.module, p.operatorInput(), p.operatorTasks(), sinkName,
		sinkName, outputSubject, p.sinkMode())
}

// The streams' subjects, in the pipeline file and in streamConfigs.
const (
	inputSubjects  = "events.>"
	outputSubjects = "out.>"
)

// streamConfigs are the streams the pipeline file with sink mode mode
// declares, as the test creates them before the workers start: R3 assets
// are created up front, never during a failure (design §4, consequence
// 1), and the inputs can then be published at any time. A worker finds
// them and checks them against its declaration (natsio.EnsureStream): the
// output stream of a transactional sink must allow atomic batch publish,
// which a worker would set only on a stream it creates
// (natsio.EnsureAtomicStream).
func streamConfigs(mode string) []jetstream.StreamConfig {
	return []jetstream.StreamConfig{
		{Name: inputStream, Subjects: []string{inputSubjects}, Storage: jetstream.FileStorage, Replicas: replicas},
		{Name: outputStream, Subjects: []string{outputSubjects}, Storage: jetstream.FileStorage, Replicas: replicas,
			Duplicates: outputWindow, AllowAtomicPublish: orIdempotent(mode) == config.ModeTransactional},
	}
}

// deadLetterStream is the engine's dead-letter stream at the cluster's
// replicas, as `wasmstream deploy` creates it (engine.EnsureDeadLetterStream).
var deadLetterStream = jetstream.StreamConfig{Name: config.DeadLetterStream, Subjects: []string{config.DeadLetterSubjects},
	Storage: jetstream.FileStorage, Replicas: replicas}

// createStreams creates the streams of a pipeline with sink mode mode on
// the cluster, and the dead-letter stream.
func createStreams(t testing.TB, js jetstream.JetStream, mode string) {
	t.Helper()
	for _, cfg := range append(streamConfigs(mode), deadLetterStream) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := js.CreateStream(ctx, cfg)
		cancel()
		if err != nil {
			t.Fatalf("create stream %s (R%d): %v", cfg.Name, cfg.Replicas, err)
		}
	}
}

// createStateStore creates the pipeline's state Object Store as a worker
// would (natsio.EnsureObjectStore: file storage, R3). Workers starting at
// once each create it when it is missing, and one of three once gave up
// after 5 s ("state object store: ... context deadline exceeded", exit 1)
// while another's create was under way; created up front, like the
// streams, it leaves the tests to the faults they are about.
func createStateStore(t testing.TB, js jetstream.JetStream) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg := jetstream.ObjectStoreConfig{Bucket: clusterworker.ObjectStoreName(pipelineName), Storage: jetstream.FileStorage, Replicas: replicas}
	if _, err := js.CreateObjectStore(ctx, cfg); err != nil {
		t.Fatalf("create the state object store %s (R%d): %v", cfg.Bucket, cfg.Replicas, err)
	}
}
