package config

import "time"

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
	DefaultSinkMode          = ModeAtLeastOnce
)

// ModeAtLeastOnce is the only sink mode accepted for now: outputs carry a Nats-Msg-Id, so a
// stream's duplicate window absorbs replays that fall inside it, but nothing more is promised.
const ModeAtLeastOnce = "at_least_once"

// Bounds of numeric settings. They exist to catch typos and values the engine cannot honour,
// not to tune anything.
const (
	maxMaxParallelism = 32768
	maxMemoryPages    = 65536 // 4 GiB, the wasm32 address space
	wasmPageBytes     = 64 << 10
	maxBatchSize      = 65536
	maxEmitsPerRecord = 65536
	maxPort           = 65535
	maxInt64          = 1<<63 - 1
	maxFileBytes      = 16 << 20 // config file, config_file and file() arguments
	deadLetterPrefix  = "wasmstream.dlq."
)

// defaultDeadLetterSubject is where an operator's poison records go unless it says otherwise.
func defaultDeadLetterSubject(pipeline, operator string) string {
	return deadLetterPrefix + pipeline + "." + operator
}
