package config

import (
	"time"

	"github.com/wasmstream/wasmstream/internal/protocol"
)

// Defaults applied when the config file leaves a setting out. docs/config.md lists the same
// values (TestDocsCoverSchema checks that every setting is documented, not the values).
const (
	DefaultDataDir           = "./data"
	DefaultEmbeddedPort      = 4222
	DefaultLogFormat         = "text"
	DefaultLogLevel          = "info"
	DefaultStorage           = "file"
	DefaultStartSequence     = 1
	DefaultParallelism       = 1
	DefaultMaxParallelism    = 128
	DefaultMemoryPages       = 512 // 32 MiB
	DefaultBatchTimeout      = 5 * time.Second
	DefaultBatchSize         = 512
	DefaultMaxValueBytes     = 1 << 20
	DefaultMaxEmitsPerRecord = 64
	DefaultSinkMode          = ModeIdempotent
	// DefaultMaxTableElements bounds a guest's tables (host.DefaultMaxTableElements): 15 times
	// the function table of the largest shipped Go guest (6,403 elements).
	DefaultMaxTableElements = 100_000
)

// Defaults of the checkpoint block. min_pause and alignment_timeout default to 0: no pause
// between checkpoints, and an aligned checkpoint never switches to unaligned.
const (
	DefaultCheckpointInterval = 5 * time.Second
	DefaultCheckpointTimeout  = 10 * time.Minute
	DefaultCheckpointRetain   = 3
	// DefaultCheckpointMode is aligned: an operator that saw barrier N on one input holds that
	// input until barrier N arrived on all of them, then snapshots. Unaligned barriers overtake
	// queued records and the operator snapshots at the first one; the records not in the
	// snapshot are replayed from the stream on restore (protocol.Mode).
	DefaultCheckpointMode = protocol.Aligned
)

// Sink modes (docs/sinks.md).
const (
	// ModeAtLeastOnce publishes each output as it is produced, without a Nats-Msg-Id: a replay
	// after a crash publishes again what the crashed run had published.
	ModeAtLeastOnce = "at_least_once"
	// ModeIdempotent publishes each output as it is produced with a Nats-Msg-Id derived from the
	// input event (its event_id, else its stream sequence) and the output's index: JetStream's
	// duplicate window drops a replay's repeats.
	ModeIdempotent = "idempotent"
	// ModeTransactional stages the outputs of each checkpoint epoch in the checkpoint and
	// publishes them as JetStream atomic batches once the checkpoint completes.
	ModeTransactional = "transactional"
)

// DefaultRetention keeps a stream's messages by its limits only.
const DefaultRetention = "limits"

// Stream replicas: one copy by default (the embedded server is one node);
// JetStream replicates a stream on at most five servers.
const (
	DefaultReplicas = 1
	MaxReplicas     = 5
)

// Defaults and bounds of the cluster block (docs/config.md, "cluster"). A NATS leader election
// takes 4-9 s, so a lease shorter than electionLeaseTTL can expire during one (a warning). The
// lease must also outlast worker_timeout (an error), and worker_timeout must outlast a few 1 s
// heartbeats. The upper bounds catch a unit typo ("5h" for "5s"), during which a dead worker's
// ranges would not move.
const (
	// DefaultClusterReplicas is R3 for the control assets: the KV and Object Store buckets
	// survive the loss of one of three servers.
	DefaultClusterReplicas = 3
	DefaultWorkerTimeout   = 5 * time.Second
	DefaultLeaseTTL        = 15 * time.Second
	DefaultStabilization   = 2 * time.Second
	minWorkerTimeout       = time.Second
	maxWorkerTimeout       = 10 * time.Minute
	minLeaseTTL            = 3 * time.Second
	maxLeaseTTL            = time.Hour
	electionLeaseTTL       = 10 * time.Second
	maxStabilization       = 10 * time.Minute
)

// DefaultSinkBatchSize is the most outputs per atomic batch: the server's default limit.
const DefaultSinkBatchSize = 1000

// server.outage_budget: its default is well above a JetStream leader election or a server
// restart (seconds) and well below JetStream's default duplicate window (2m), which makes the
// resends through an outage safe. Below a second a reconnect cannot complete; above an hour the
// duplicate window of any stream would be too short for the resends and the replay.
const (
	DefaultOutageBudget = 30 * time.Second
	minOutageBudget     = time.Second
	maxOutageBudget     = time.Hour
)

// Bounds of server.max_payload. Below 128 KiB the module registry cannot store a module (Object
// Store chunks are 128 KiB); above 64 MiB nats-server refuses to start (its max_pending), and above
// 8 MiB it warns.
const (
	MinMaxPayload = 128 << 10
	MaxMaxPayload = 64 << 20
)

// Bounds of numeric settings. They exist to catch typos and values the engine cannot honour,
// not to tune anything.
const (
	maxMaxParallelism = 32768
	maxMemoryPages    = 65536 // 4 GiB, the wasm32 address space
	wasmPageBytes     = 64 << 10
	maxBatchSize      = 65536
	maxEmitsPerRecord = 65536
	maxTableElements  = 1 << 27 // wazero's own bound on a table (host.MaxTableElementsLimit)
	maxPort           = 65535
	maxInt64          = 1<<63 - 1
	maxFileBytes      = 16 << 20 // config file, config_file and file() arguments
	deadLetterPrefix  = "wasmstream.dlq."
	// minCheckpointInterval is the shortest interval accepted: below it the pipeline would do
	// little but checkpoint (a Pebble checkpoint alone takes milliseconds).
	minCheckpointInterval = 10 * time.Millisecond
	maxCheckpointRetain   = 1000
	maxStateVersionLen    = 64
)

// defaultDeadLetterSubject is where an operator's poison records go unless it says otherwise.
func defaultDeadLetterSubject(pipeline, operator string) string {
	return deadLetterPrefix + pipeline + "." + operator
}
