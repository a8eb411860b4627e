package engine

import "github.com/wasmstream/wasmstream/internal/exchange"

// markerAlignment decides when the source of an exchange edge injects a requested barrier
// (FORMAT.md §5.2). It is a pure state machine: the source's loop feeds it the coordinator's
// requests and the markers it reads, in the order it gets them, and injects at its current
// position whenever a call returns true.
//
// Why a cut anywhere in the stream is consistent: the exchange stream is durable and
// replayable, so the consumer's channel state is just "the messages after its recorded
// sequence S". Every record appended before S is in the consumer's snapshot, every record
// after S is read again on restore, and a producer restored from the same checkpoint replays
// its inputs and republishes the same record ids, which the stream's duplicate window absorbs:
// nothing is appended twice. The coordinator flushes the sink before it completes a checkpoint,
// so every output of a record before a producer's barrier is stored by then. The first marker
// of the checkpoint only decides when to cut: soon after the producers took their barrier, so
// that little is replayed.
type markerAlignment struct {
	generation uint64 // the run's (or, following, the newest seen): markers of others are ignored
	keyGroups  int    // copies of one producer task's marker: one per key-group subject
	// follow: a cluster part's checkpoints come from whichever coordinator leads, and the
	// markers of a newer coordinator (a larger generation: the lease's revision) supersede
	// the older one's, whether its request or one of its markers comes first.
	follow bool

	pending *barrierRequest // requested and not yet injected
	seen    uint64          // the newest checkpoint of this generation a marker was read of
	copies  map[markerCopy]bool
	tasks   uint32 // producer tasks of seen's markers
}

// markerCopy is one of the copies of a producer task's marker: one per key-group subject.
type markerCopy struct {
	task     uint32
	keyGroup int
}

func newMarkerAlignment(generation uint64, keyGroups int, follow bool) *markerAlignment {
	return &markerAlignment{generation: generation, keyGroups: keyGroups, follow: follow, copies: map[markerCopy]bool{}}
}

// request takes the coordinator's barrier request, asked by the coordinator of generation (a
// following alignment adopts it when newer). It returns the barrier to inject at once, if any:
// when a marker of the checkpoint, or of a newer one, was read already.
func (a *markerAlignment) request(req barrierRequest, generation uint64) (barrierRequest, bool) {
	a.adopt(generation)
	a.pending = &req
	return a.ready()
}

// adopt makes a newer generation the one whose markers count, when following: what was seen
// of the older one says nothing about the newer one's checkpoints, whose ids may repeat.
func (a *markerAlignment) adopt(generation uint64) {
	if !a.follow || generation <= a.generation {
		return
	}
	a.generation, a.seen, a.tasks = generation, 0, 0
	clear(a.copies)
}

// cutNow forgets a pending request: an unaligned barrier went in at once instead, and
// supersedes it.
func (a *markerAlignment) cutNow() { a.pending = nil }

// marker takes a marker read on the subject of keyGroup and returns the pending barrier when it
// is to be injected right after the marker. Markers of another run (generation), of an older checkpoint
// than the newest seen, and repeats change nothing.
func (a *markerAlignment) marker(m exchange.Marker, keyGroup int) (barrierRequest, bool) {
	a.adopt(m.Generation)
	if m.Generation != a.generation || m.Checkpoint < a.seen {
		return barrierRequest{}, false
	}
	if m.Checkpoint > a.seen {
		a.seen, a.tasks = m.Checkpoint, m.Tasks
		clear(a.copies)
	}
	a.copies[markerCopy{task: m.Task, keyGroup: keyGroup}] = true
	return a.ready()
}

// ready returns the pending barrier when it can be injected now, and forgets it. A
// checkpoint's barrier goes at the first marker of it (or of a newer one). The final barrier
// waits until every copy of every producer task's marker was read: producers emit nothing
// after it, so the stream holds nothing after the final position, and the restart after a
// graceful stop replays nothing.
func (a *markerAlignment) ready() (barrierRequest, bool) {
	switch {
	case a.pending == nil, a.seen < a.pending.ID:
		return barrierRequest{}, false
	case a.pending.Final && a.seen == a.pending.ID && len(a.copies) < int(a.tasks)*a.keyGroups:
		return barrierRequest{}, false
	}
	req := *a.pending
	a.pending = nil
	return req, true
}
