package control

import (
	"time"
)

// ServiceName is the NATS micro service every `wasmstream run` registers:
// the standard discovery subjects ($SRV.PING, $SRV.INFO, $SRV.STATS, each
// also with ".wasmstream") find every running pipeline on a server.
const ServiceName = "wasmstream"

// The service's metadata keys (micro.Info.Metadata).
const (
	MetaPipeline = "pipeline"
	MetaHost     = "host"
	MetaDataDir  = "data_dir"
	MetaPID      = "pid"
	MetaVersion  = "version" // the binary's version as built; the service's own must be semver
)

// StatusSubject is the service's status endpoint: an empty request gets a
// JSON Status.
func StatusSubject(pipeline string) string { return "wasmstream.control." + pipeline + ".status" }

// StopSubject is the service's stop endpoint: the pipeline stops as on
// SIGTERM (a final checkpoint) and answers a JSON StopReply once its run
// has returned.
func StopSubject(pipeline string) string { return "wasmstream.control." + pipeline + ".stop" }

// The states a Status reports.
const (
	StateRunning  = "running"
	StateStopping = "stopping" // the final checkpoint is under way
)

// Status is a running pipeline's answer on its status endpoint.
type Status struct {
	Pipeline string    `json:"pipeline"`
	State    string    `json:"state"`
	Version  string    `json:"version"`
	Host     string    `json:"host"`
	PID      int       `json:"pid"`
	DataDir  string    `json:"data_dir"`
	Started  time.Time `json:"started"`
	// RecordsIn counts the records the sources read since the run
	// started; RecordsPerSecond is their rate over the last RateWindow.
	RecordsIn        uint64  `json:"records_in"`
	Processed        uint64  `json:"processed"`
	RecordsPerSecond float64 `json:"records_per_second"`
	RateWindowSecs   float64 `json:"rate_window_seconds"`
	DeadLetters      uint64  `json:"dead_letters"`
	// CheckpointsCompleted counts the run's checkpoints; LastCheckpoint is
	// the newest of them (nil before the first).
	CheckpointsCompleted uint64            `json:"checkpoints_completed"`
	LastCheckpoint       *CheckpointStatus `json:"last_checkpoint"`
	Sources              []SourceStatus    `json:"sources"`
	Operators            []OperatorStatus  `json:"operators"`
}

// CheckpointStatus is one completed checkpoint.
type CheckpointStatus struct {
	ID         uint64    `json:"id"`
	Completed  time.Time `json:"completed"`
	DurationMS float64   `json:"duration_ms"`
}

// SourceStatus is a source's position and lag.
type SourceStatus struct {
	Name     string `json:"name"`
	Stream   string `json:"stream"`
	Position uint64 `json:"position"`
	// Pending is how many records the stream holds that the source has not
	// taken yet; nil when the server did not say (NATS away, or too slow).
	Pending *uint64 `json:"pending"`
}

// OperatorStatus is an operator's tasks and module.
type OperatorStatus struct {
	Name         string `json:"name"`
	Parallelism  int    `json:"parallelism"`
	ModuleSHA256 string `json:"module_sha256"`
}

// StopReply answers a stop request once the run returned.
type StopReply struct {
	Pipeline string `json:"pipeline"`
	// FinalCheckpoint is the run's last checkpoint: the one the stop took
	// unless the run failed first.
	FinalCheckpoint *CheckpointStatus `json:"final_checkpoint"`
	Error           string            `json:"error,omitempty"` // why the run failed instead
}
