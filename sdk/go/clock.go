package wasmstream

import (
	"time"

	"github.com/wasmstream/wasmstream/sdk/go/internal/hostcall"
)

// EventTime returns the event time of the record being processed (the same
// as Record.EventTime), in UTC.
func EventTime() time.Time {
	return time.Unix(0, hostcall.EventTime()).UTC()
}

// ProcessingTime returns the host's clock at the start of the current
// batch, in UTC. Use it instead of time.Now: a guest's time must come from
// the host, which is what lets the host make a replay deterministic.
func ProcessingTime() time.Time {
	return time.Unix(0, hostcall.ProcessingTime()).UTC()
}
