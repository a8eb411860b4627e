//go:build !wasip1

package hostcall

import "sync"

// mu serialises users of the process-wide host: there is one SDK state per
// process, as there is one per wasm instance.
var (
	mu      sync.Mutex
	current Host
)

// noHost is the panic value when SDK code runs natively outside a harness.
const noHost = "wasmstream: no host is installed: this code only runs inside a wasmstream guest " +
	"(GOOS=wasip1) or inside a test harness from package sdktest"

// Install makes h the host of every SDK call until release is called.
// It blocks while another host is installed, so harnesses in parallel tests
// take turns instead of mixing their calls.
func Install(h Host) (release func()) {
	mu.Lock()
	current = h
	return func() {
		current = nil
		mu.Unlock()
	}
}

func host() Host {
	if current == nil {
		panic(noHost)
	}
	return current
}

// RecordNext calls the installed host's RecordNext.
func RecordNext() int32 { return host().RecordNext() }

// StateGet calls the installed host's StateGet with out's full capacity.
func StateGet(name, out []byte) int32 { return host().StateGet(name, out[:cap(out)]) }

// StatePut calls the installed host's StatePut.
func StatePut(name, value []byte) int32 { return host().StatePut(name, value) }

// StateDelete calls the installed host's StateDelete.
func StateDelete(name []byte) int32 { return host().StateDelete(name) }

// Emit calls the installed host's Emit.
func Emit(output, key, value, headers []byte) int32 {
	return host().Emit(output, key, value, headers)
}

// Log calls the installed host's Log.
func Log(level int32, msg []byte) { host().Log(level, msg) }

// EventTime calls the installed host's EventTime.
func EventTime() int64 { return host().EventTime() }

// ProcessingTime calls the installed host's ProcessingTime.
func ProcessingTime() int64 { return host().ProcessingTime() }

// StateDeclare calls the installed host's StateDeclare.
func StateDeclare(name []byte, version int32, ttlMillis int64, flags int32) int32 {
	return host().StateDeclare(name, version, ttlMillis, flags)
}
