package engine

import "github.com/wasmstream/wasmstream/internal/protocol"

// barrierRequest asks a source to inject the barrier of a checkpoint. A
// final barrier is the source's last item: it stops reading after it.
type barrierRequest = protocol.InjectBarriers

// reports carries what sources and tasks tell the coordinator, from their
// goroutines to the one that drives the protocol.
type reports chan protocol.Event

// reportCapacity sizes the report channel so that no source or task blocks
// on it: one report each per checkpoint, a few checkpoints given up with
// their reports still coming.
func reportCapacity(sources, tasks int) int { return 4*(sources+tasks) + 16 }
