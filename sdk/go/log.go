package wasmstream

import (
	"fmt"
	"unsafe"

	"github.com/wasmstream/wasmstream/abi"
	"github.com/wasmstream/wasmstream/sdk/go/internal/hostcall"
)

// Level is the severity of a log line.
type Level int32

// Log levels, as in the ABI.
const (
	LevelTrace Level = abi.LogTrace
	LevelDebug Level = abi.LogDebug
	LevelInfo  Level = abi.LogInfo
	LevelWarn  Level = abi.LogWarn
	LevelError Level = abi.LogError
)

// String returns "trace", "debug", "info", "warn" or "error".
func (l Level) String() string {
	switch l.known() {
	case LevelTrace:
		return "trace"
	case LevelDebug:
		return "debug"
	case LevelInfo:
		return "info"
	case LevelWarn:
		return "warn"
	default:
		return "error"
	}
}

// known maps a level outside the ABI's range to LevelError, which is what
// the host does with it.
func (l Level) known() Level {
	if l < LevelTrace || l > LevelError {
		return LevelError
	}
	return l
}

// Log writes msg to the host's log at level; an unknown level logs at
// LevelError. The host keeps at most 1000 lines per batch and 4096 bytes
// per line.
func Log(level Level, msg string) {
	hostcall.Log(int32(level.known()), stringBytes(msg))
}

// Debugf logs a formatted message at LevelDebug.
func Debugf(format string, args ...any) { Log(LevelDebug, fmt.Sprintf(format, args...)) }

// Infof logs a formatted message at LevelInfo.
func Infof(format string, args ...any) { Log(LevelInfo, fmt.Sprintf(format, args...)) }

// Warnf logs a formatted message at LevelWarn.
func Warnf(format string, args ...any) { Log(LevelWarn, fmt.Sprintf(format, args...)) }

// Errorf logs a formatted message at LevelError.
func Errorf(format string, args ...any) { Log(LevelError, fmt.Sprintf(format, args...)) }

// stringBytes views s as bytes without copying, for passing to the host,
// which only reads them.
func stringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
