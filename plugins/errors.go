package plugins

import (
	"errors"

	"github.com/wasmstream/wasmstream/internal/modref"
)

// Validation errors: Validate and Push return an error that wraps exactly
// one of them (see ValidationError), so callers decide with errors.Is.
var (
	// ErrNotWasm: the bytes are not a WebAssembly module wazero can decode.
	ErrNotWasm = errors.New("not a WebAssembly module")
	// ErrABI: the module was built for another ABI version.
	ErrABI = errors.New("wrong ABI version")
	// ErrExports: a required export is missing or has the wrong signature.
	ErrExports = errors.New("missing or mistyped exports")
	// ErrImports: the module imports something the host does not provide.
	ErrImports = errors.New("unknown imports")
	// ErrTooLarge: the module is over the size limit.
	ErrTooLarge = errors.New("module over the size limit")
	// ErrMemory: the module's initial memory is over the memory limit.
	ErrMemory = errors.New("memory over the limit")
	// ErrStart: the module trapped or hung while it was started for
	// validation (start section, _initialize or ws_abi_version).
	ErrStart = errors.New("module failed to start")
	// ErrInit: ws_init failed with the config validation gave it (empty
	// unless one is given): it returned non-zero, trapped, misused the ABI
	// (such as emitting: no record is current in ws_init), ran past its
	// deadline or out of memory. `wasmstream validate` and `run` would
	// refuse the module for the same reason.
	ErrInit = errors.New("ws_init failed")
)

// Registry errors.
var (
	// ErrName: an operator name outside 1..64 of [A-Za-z0-9_-] (modref.ErrName).
	ErrName = modref.ErrName
	// ErrRef: a string that is neither a local path nor NAME[@HASH] (modref.ErrRef).
	ErrRef = modref.ErrRef
	// ErrLocalRef: a registry operation was given a local path (modref.ErrLocalRef).
	ErrLocalRef = modref.ErrLocalRef
	// ErrNotFound: no version matches the reference.
	ErrNotFound = errors.New("operator not found")
	// ErrAmbiguous: a hash prefix matches more than one version.
	ErrAmbiguous = errors.New("ambiguous operator version")
	// ErrCorrupt: stored bytes do not hash to their version.
	ErrCorrupt = errors.New("corrupt operator module")
	// ErrAllVersions: removing every version of a name needs an explicit
	// RemoveOptions.AllVersions.
	ErrAllVersions = errors.New("removing every version of an operator needs an explicit choice")
)

// ValidationError is a module that Validate refused. Kind is one of the
// validation sentinels; Cause, when set, is the host or wazero error behind
// it (so errors.Is(err, host.ErrABIVersion) holds too).
type ValidationError struct {
	Kind   error
	Detail string
	Cause  error
}

func (e *ValidationError) Error() string { return e.Kind.Error() + ": " + e.Detail }

// Unwrap exposes Kind and Cause to errors.Is and errors.As.
func (e *ValidationError) Unwrap() []error {
	if e.Cause == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Cause}
}
