package acceptance

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// The acceptance pipeline: source "events" on stream EVENTS, operator
// "sum" (internal/testguests/sum2) keyed by the JSON field "k" with 4
// tasks over the default 128 key groups, idempotent sink "results" into
// stream OUT. Output ids are built from these names (docs/sinks.md).
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
	replicas      = 3
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
}

operator %q {
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
  mode    = "idempotent"
}
`, pipelineName, p.dataDir, p.urls, workerTimeout, leaseTTL, checkpointInterval,
		inputStream, inputSubjects, replicas,
		outputStream, outputSubjects, outputWindow.String(), replicas,
		sourceName, inputStream, inputSubject,
		operatorName, p.module, sourceName, parallelism, sinkName,
		sinkName, outputSubject)
}

// The streams' subjects, in the pipeline file and in streamConfigs.
const (
	inputSubjects  = "events.>"
	outputSubjects = "out.>"
)

// streamConfigs are the streams the pipeline file declares, as the test
// creates them before the workers start: R3 assets are created up front,
// never during a failure (design §4, consequence 1), and the inputs can
// then be published at any time. A worker finds them and checks them
// against its declaration (natsio.EnsureStream).
func streamConfigs() []jetstream.StreamConfig {
	return []jetstream.StreamConfig{
		{Name: inputStream, Subjects: []string{inputSubjects}, Storage: jetstream.FileStorage, Replicas: replicas},
		{Name: outputStream, Subjects: []string{outputSubjects}, Storage: jetstream.FileStorage, Replicas: replicas,
			Duplicates: outputWindow},
	}
}

// createStreams creates the pipeline's streams on the cluster.
func createStreams(t *testing.T, js jetstream.JetStream) {
	t.Helper()
	for _, cfg := range streamConfigs() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := js.CreateStream(ctx, cfg)
		cancel()
		if err != nil {
			t.Fatalf("create stream %s (R%d): %v", cfg.Name, cfg.Replicas, err)
		}
	}
}
