package config

import (
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/wasmstream/wasmstream/internal/protocol"
)

// Pipeline is a decoded and validated config file, with every default filled in and every path
// made absolute.
type Pipeline struct {
	// Name identifies the pipeline (checkpoints, dead-letter subjects, metrics): [a-z0-9_-]+.
	Name string
	// DataDir holds the embedded server's store and the checkpoints; absolute.
	DataDir string
	// Dir is the absolute directory of the config file; relative paths in it resolve here.
	Dir    string
	Server Server
	Log    Log
	// Checkpoint says when and how the pipeline's state is checkpointed.
	Checkpoint Checkpoint
	// Cluster configures `wasmstream worker` processes sharing the pipeline; its defaults are
	// filled in when the file has no cluster block.
	Cluster Cluster
	// Observe is the metrics and health endpoint; off (empty Listen) without an observe block.
	Observe Observe
	// Exchange configures the streams between operators; its defaults are filled in when the
	// file has no exchange block.
	Exchange Exchange
	// Streams, Sources, Operators and Sinks keep the order of the file.
	Streams   []Stream
	Sources   []Source
	Operators []Operator
	Sinks     []Sink
	// Text is the file's text, kept so a run can record the config it started from. (It is not
	// called Source because Source(name) looks up a source.)
	Text string
}

// Server says which NATS server to use. An empty URL means an embedded JetStream server whose
// store lives in the pipeline's data directory.
type Server struct {
	// URL is one NATS URL or several separated by commas.
	URL string
	// Credentials is the absolute path of a NATS .creds file, or empty.
	Credentials string
	// User and Password, or Token, authenticate to the server at URL.
	User, Password, Token string
	// NkeySeed is the absolute path of an nkey user seed file, or empty.
	NkeySeed string
	// TLS holds the files of a TLS connection to the server at URL (server_tls.go).
	TLS TLS
	// JetStreamDomain or JetStreamAPIPrefix, at most one, address the JetStream API of
	// another domain (a leaf node's hub) or an account's import; InboxPrefix replaces
	// "_INBOX" in reply subjects.
	JetStreamDomain, JetStreamAPIPrefix, InboxPrefix string
	// Context is the NATS CLI context that completed the settings above and ContextFile
	// its file; both empty without one (server_context.go).
	Context, ContextFile string
	// EmbeddedPort is the client port of the embedded server.
	EmbeddedPort int
	// MaxPayload is the embedded server's max_payload in bytes: the largest message, headers
	// and data, it accepts. 0 means the server's default (1 MiB).
	MaxPayload int
	// OutageBudget is how long NATS may stay unreachable before the pipeline stops: publishes
	// are sent again through a reconnect, and checkpoints that fail only because NATS is away
	// are not counted as failures, for this long.
	OutageBudget time.Duration
}

// Log configures the process's log output.
type Log struct {
	Format string // "text" or "json"
	Level  string // "trace", "debug", "info", "warn" or "error"
}

// Checkpoint says when checkpoints are taken, how long they may take, how operators with
// several inputs align barriers and how many completed checkpoints are kept.
type Checkpoint struct {
	// Interval is the time between checkpoint triggers; 0 means only on demand and at stop.
	// A longer interval means less overhead but a longer replay after a crash.
	Interval time.Duration
	// Timeout aborts a checkpoint not complete after it; the next trigger tries again. Positive.
	Timeout time.Duration
	// MinPause is the least time between the end of one checkpoint and the next trigger, so
	// that slow checkpoints cannot follow each other back to back.
	MinPause time.Duration
	// Mode is aligned (the default) or unaligned: the protocol's one mode type.
	Mode protocol.Mode
	// AlignmentTimeout switches an aligned checkpoint to unaligned when the barriers of an
	// operator's inputs have not all arrived after it; 0 means never. Always 0 when Mode is
	// unaligned.
	AlignmentTimeout time.Duration
	// Retain is the number of completed checkpoints kept, 1 to 1000.
	Retain int
	// Range is the block's position; zero when the file has no checkpoint block.
	Range hcl.Range
}

// Cluster configures the workers that share one pipeline over a NATS JetStream cluster: the
// control assets they create, and when a worker counts as dead and its key-group ranges move.
// A cluster block needs server.url; LeaseTTL is always greater than WorkerTimeout.
type Cluster struct {
	// Replicas is how many servers keep the control assets (the KV and Object Store buckets
	// the workers create), 1 to 5.
	Replicas int
	// WorkerTimeout is how long a worker's heartbeats may be missing before the coordinator
	// considers it dead and moves its ranges, 1s to 10m.
	WorkerTimeout time.Duration
	// LeaseTTL is the time to live of the coordinator and membership leases, 3s to 1h. A worker
	// whose lease expired fences itself: it stops its tasks and publishes nothing more.
	LeaseTTL time.Duration
	// Stabilization is how long membership must stay unchanged before the coordinator
	// reassigns ranges, 0s to 10m.
	Stabilization time.Duration
	// Range is the block's position; zero when the file has no cluster block.
	Range hcl.Range
}

// Stream is a JetStream stream that the engine creates when it is missing.
type Stream struct {
	Name     string
	Subjects []string
	// DuplicateWindow is how long JetStream remembers Nats-Msg-Id values; 0 leaves the server's
	// default (2 minutes).
	DuplicateWindow time.Duration
	Storage         string // "file" or "memory"
	// Retention is "limits", "workqueue" or "interest"; sources of the last two acknowledge what
	// completed checkpoints cover.
	Retention string
	// Replicas is how many servers of a cluster keep the stream (1–5); more than 1 needs
	// server.url to a JetStream cluster.
	Replicas int
	Range    hcl.Range
}

// Source reads one JetStream stream, optionally filtered to a subject.
type Source struct {
	Name    string
	Stream  string
	Subject string // filter; empty reads every subject of the stream
	// StartSequence is where the first run starts; later runs resume from their checkpoint.
	StartSequence uint64
	// MaxDuplicateDelay is how late a duplicate of an event can arrive after the original
	// (publisher retries, upstream redelivery); 0 when not declared. A dedup TTL shorter than
	// it lets such duplicates through, so validate and run warn.
	MaxDuplicateDelay time.Duration
	// EventID says where a record carries its business identity (the `event_id` block), from
	// which idempotent sinks derive the Nats-Msg-Id of its outputs; nil: the stream sequence.
	EventID *Key
	// Route reads the source once, by one task, which publishes each record into an exchange
	// stream per operator reading it, partitioned by that operator's key groups (a router,
	// internal/exchange/FORMAT.md §2.1); the operators read those streams instead. In a
	// cluster, one worker then reads the source instead of every worker.
	Route bool
	Range hcl.Range
}

// Key says where an operator finds the key of a record. Exactly one field is set.
type Key struct {
	JSONField    string // top-level or dotted field of a JSON payload
	SubjectToken int    // 1-based token of the record's subject
	Header       string // NATS header name
}

// Limits bound what one operator's guest may use.
type Limits struct {
	MemoryPages       uint32 // 64 KiB WebAssembly pages
	BatchTimeout      time.Duration
	BatchSize         int // records per guest call
	MaxValueBytes     int // largest state value or emitted value
	MaxEmitsPerRecord int
	// MaxTableElements bounds the guest's tables: each must fit, and their maxima together
	// (8 bytes per element in the host).
	MaxTableElements uint32
}

// Operator is one WebAssembly module with its inputs, key, parallelism and outputs.
type Operator struct {
	Name string
	// Module is the absolute path of the .wasm file. Its existence is not checked here; the
	// engine reports a missing module at ModuleRange.
	Module string
	// ModuleRef is a registry reference (NAME or NAME@HASH) when the config names the module
	// that way; the engine then fetches it and sets Module to the cached file.
	ModuleRef string
	// Inputs are what the operator reads, in the file's order: source names, and outputs of
	// other operators written OPERATOR.OUTPUT (see ParseInputRef and Pipeline.Graph).
	Inputs []string
	// Key says where the key of a record is, for every input without a key of its own in
	// InputKeys. It is the zero Key when every input has its own.
	Key Key
	// InputKeys are the keys of the `input` blocks, by input: the records of that input are
	// keyed (re-keyed, for another operator's output) by it instead of Key.
	InputKeys      map[string]Key
	Parallelism    int
	MaxParallelism int // number of key groups; fixed for the life of the state
	// StateVersion names the layout of the state the module writes, or is empty. A restore
	// whose checkpoint was written by another module is accepted when the checkpoint's
	// operator and this one declare the same non-empty StateVersion: the new module promises
	// to read the old state.
	StateVersion string
	// Config is handed to the guest's init as is (from config or config_file).
	Config []byte
	// Outputs maps a guest output name to a sink name.
	Outputs map[string]string
	// InternalOutputs are guest outputs published to no sink, only read by other operators
	// (OPERATOR.OUTPUT in their inputs), in the file's order.
	InternalOutputs   []string
	DeadLetterSubject string
	Limits            Limits
	// States are the `state` blocks: settings (TTL) of named states.
	States []StateConfig
	Range  hcl.Range
	// ModuleRange is the module value's position, for errors the engine finds in the module.
	ModuleRange hcl.Range
}

// Sink publishes an operator's output to a JetStream subject.
type Sink struct {
	Name    string
	Subject string
	Mode    string // ModeAtLeastOnce, ModeIdempotent or ModeTransactional
	// BatchSize is the most outputs per JetStream atomic batch (transactional sinks).
	BatchSize int
	Range     hcl.Range
}

// Stream returns the stream called name, or nil.
func (p *Pipeline) Stream(name string) *Stream { return find(p.Streams, name, streamName) }

// Source returns the source called name, or nil.
func (p *Pipeline) Source(name string) *Source { return find(p.Sources, name, sourceName) }

// Operator returns the operator called name, or nil.
func (p *Pipeline) Operator(name string) *Operator { return find(p.Operators, name, operatorName) }

// Sink returns the sink called name, or nil.
func (p *Pipeline) Sink(name string) *Sink { return find(p.Sinks, name, sinkName) }

// ModuleError reports err at the operator's module attribute, so the user sees which line named
// the module that failed to load. errors.Is sees err through the result.
func (o *Operator) ModuleError(err error) Diagnostic {
	return Errorf(o.ModuleRange, "operator %q: module %q: %w", o.Name, o.Module, err)
}

func find[T any](items []T, name string, nameOf func(*T) string) *T {
	for i := range items {
		if nameOf(&items[i]) == name {
			return &items[i]
		}
	}
	return nil
}

func streamName(s *Stream) string     { return s.Name }
func sourceName(s *Source) string     { return s.Name }
func operatorName(o *Operator) string { return o.Name }
func sinkName(s *Sink) string         { return s.Name }
