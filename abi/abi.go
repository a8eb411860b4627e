// Package abi is the contract between the wasmstream host and its guests:
// the ABI version, the names of imports and exports, the error-code registry
// and the byte encodings that cross the boundary. It is specified in ABI.md.
//
// The package is pure Go with no dependencies so that the host and the Go
// SDK (GOOS=wasip1) share one definition.
package abi

// Version is the ABI version this package describes. A guest returns it from
// ExportABIVersion; the host refuses any other value at load time.
const Version = 1

// ImportModule is the module name of every host function.
const ImportModule = "wasmstream"

// Guest exports. Every operator module exports ws_abi_version, ws_alloc,
// ws_init, ws_process and its memory; ws_migrate is optional (revision 1.2).
const (
	// ExportABIVersion: () -> i32. Returns the ABI version the guest was built for.
	ExportABIVersion = "ws_abi_version"
	// ExportAlloc: (size i32) -> i32. Returns a pointer to at least size bytes
	// that stay valid until the next call of ExportAlloc.
	ExportAlloc = "ws_alloc"
	// ExportInit: (cfg_ptr i32, cfg_len i32) -> i32. Called once per instance
	// with the operator's config bytes. 0 or a negative error code.
	ExportInit = "ws_init"
	// ExportProcess: (batch_ptr i32, batch_len i32) -> i32. Processes one batch.
	// 0 or a negative error code.
	ExportProcess = "ws_process"
	// ExportMemory is the guest's linear memory.
	ExportMemory = "memory"
	// ExportMigrate: (name_ptr, name_len, from_version, val_ptr, val_len i32) -> i64.
	// Optional (revision 1.2): converts one stored value of a state whose
	// declared version changed. Result: len<<32 | ptr of the new value;
	// ErrNotFound (-1) to delete the entry; any other negative value fails.
	ExportMigrate = "ws_migrate"
	// ExportWASIInitialize is the reactor initialiser of WASI modules (Go,
	// C with -mexec-model=reactor). The host calls it first when present.
	ExportWASIInitialize = "_initialize"
	// ExportWASICommandStart is the entry point of WASI command modules (Go
	// without -buildmode=c-shared). The host never calls it, and refuses a
	// module that exports it without _initialize (ABI.md §3.1).
	ExportWASICommandStart = "_start"
)

// RequiredExports lists the exports a module must have to load.
var RequiredExports = []string{ExportABIVersion, ExportAlloc, ExportInit, ExportProcess, ExportMemory}

// Host functions, all in ImportModule.
const (
	// FuncRecordNext: () -> i32. Advances to the next record of the batch:
	// 1 when there is one (state calls now address its key), 0 at the end.
	FuncRecordNext = "record_next"
	// FuncStateGet: (name_ptr, name_len, out_ptr, out_cap i32) -> i32.
	FuncStateGet = "state_get"
	// FuncStatePut: (name_ptr, name_len, val_ptr, val_len i32) -> i32.
	FuncStatePut = "state_put"
	// FuncStateDelete: (name_ptr, name_len i32) -> i32.
	FuncStateDelete = "state_delete"
	// FuncEmit: (out_ptr, out_len, key_ptr, key_len, val_ptr, val_len, hdr_ptr, hdr_len i32) -> i32.
	FuncEmit = "emit"
	// FuncLog: (level, msg_ptr, msg_len i32) -> ().
	FuncLog = "log"
	// FuncEventTime: () -> i64. Event time of the current record, Unix nanoseconds.
	FuncEventTime = "event_time"
	// FuncProcessingTime: () -> i64. Host clock when the batch started, Unix nanoseconds.
	FuncProcessingTime = "processing_time"
	// FuncStateDeclare: (name_ptr, name_len, version i32, ttl_ms i64, flags i32) -> i32.
	// Revision 1.1: declares a named state's version and TTL during ws_init.
	FuncStateDeclare = "state_declare"
	// FuncOutputIndex: (name_ptr, name_len i32) -> i32.
	// Revision 1.3: the index of a wired output, for FuncEmitBatch.
	FuncOutputIndex = "output_index"
	// FuncEmitLimits: () -> i64. Revision 1.3: max_emits_per_record << 32 | max_value_bytes.
	FuncEmitLimits = "emit_limits"
	// FuncEmitBatch: (ptr, len i32) -> i32. Revision 1.3: hands over emits
	// the guest collected in its own memory, encoded as an emit list.
	FuncEmitBatch = "emit_batch"
)

// Revision is the ABI revision: additions a v1 guest cannot observe (ABI.md §9).
const Revision = 3

// State declarations (FuncStateDeclare).
const (
	// TTLUnset: the module says nothing about the state's TTL.
	TTLUnset = 0
	// TTLNever: the state never expires, whatever the config says.
	TTLNever = -1
	// DeclareReadAndWrite: the expiry moves on reads too (on_read_and_write).
	DeclareReadAndWrite = 1 << 0
	// DeclareReturnExpired: expired values are returned until cleaned up.
	DeclareReturnExpired = 1 << 1
	// DeclareEventTime: the TTL counts in event time.
	DeclareEventTime = 1 << 2
	// DeclareMigrates: the module's ws_migrate converts this state's values
	// from older versions (revision 1.2).
	DeclareMigrates = 1 << 3
	// DeclareFlagsMask has every defined flag bit.
	DeclareFlagsMask = DeclareReadAndWrite | DeclareReturnExpired | DeclareEventTime | DeclareMigrates
	// MaxStateVersion is the largest declared state version.
	MaxStateVersion = 1<<31 - 1
)

// Limits that are part of the contract.
const (
	// MaxStateNameLen is the longest state name in bytes. Names are opaque bytes;
	// the SDKs build map-state entries as name 0x00 mapKey.
	MaxStateNameLen = 1024
	// MaxOutputNameLen is the longest output name in bytes.
	MaxOutputNameLen = 255
	// DefaultMaxValueLen is the default largest state value or emitted value.
	DefaultMaxValueLen = 1 << 20
)

// Log levels accepted by FuncLog.
const (
	LogTrace = 0
	LogDebug = 1
	LogInfo  = 2
	LogWarn  = 3
	LogError = 4
)
