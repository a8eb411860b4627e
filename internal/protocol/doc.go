// Package protocol is wasmstream's checkpoint protocol as pure state
// machines, in the style of etcd's raft core: no goroutines, no timers, no
// I/O, and a Clock passed in. Drivers feed them what happened and perform
// the actions they return, in order. Every interleaving can therefore be
// tested step by step (testdata/task, testdata/coordinator) and at random
// (property_test.go), and the same coordinator can later be driven by
// events that arrive over NATS from other processes instead of channels.
//
// # Roles
//
//	          Trigger / Tick / Stop
//	                   │
//	                   ▼
//	┌──────────────── Coordinator ───────────────┐
//	│ InjectBarriers   Persist   Publish  Announce│
//	└──┬──────────────────▲───────▲─────────────┘
//	   │ barrier N        │       │ Persisted / Published
//	   ▼                  │       │ (the driver's I/O)
//	source ── SourceReported ──────┘
//	   │ records, barrier N (in-band, or overtaking on its own lane)
//	   ▼
//	 Task: Chunk → process | hold;  Barrier → Snapshot, Ack, Release …
//	   └── TaskAcked ──► Coordinator
//
// [Coordinator] runs one checkpoint at a time: triggered periodically, on
// demand ([Trigger]) or at a stop ([Stop], the final checkpoint, whose
// barriers never overtake and after which the sources stop). Once every
// source reported its barrier position and every task acknowledged its
// snapshot it asks to [Persist] the checkpoint (state checkpoint and
// manifest); a persisted checkpoint is complete. Only then are the
// transactional outputs staged in it published ([Publish]). With
// MaxUnpublished 0, and always for the final checkpoint and one a trigger
// waits for, the checkpoint is announced, the sources acknowledged and old
// checkpoints retired only once they are visible; otherwise a periodic
// checkpoint is announced at once and published behind the next ones, one
// publication at a time, in order, with a periodic trigger held back while
// more than MaxUnpublished completed checkpoints are unpublished
// (coordinator_publish.go). A checkpoint whose reports are not all in
// after the timeout is given up ([Cancel] to the tasks, [CheckpointFailed])
// and retried by the next trigger with a new id; late reports of it are
// ignored. MaxFailures failed checkpoints in a row stop the pipeline
// ([Fail]). A failure the driver marks as an outage (NATS unreachable:
// [Persisted].Outage, [Published].Outage) is not counted; the outage budget
// bounds those instead, and a complete checkpoint's outputs that NATS did
// not take are published again after a pause ([PublishDeferred]).
//
// [Task] is one operator task's side. In aligned mode, after barrier N on
// input i the task holds input i's chunks until barrier N arrived on every
// input, then snapshots at the barriers' positions and releases what it
// held. In unaligned mode the sources send barriers on a priority lane
// ahead of queued records (overtaking), and the task snapshots at the
// first one; each input's position in the snapshot is how far the task had
// processed it. No record is logged as channel state: records that
// precede a barrier but follow the snapshot are replayed from the stream
// after a restore, which resumes each source at the lowest position of
// any task, and a [SkipTable] per key group drops the replayed records a
// restored state already holds. An aligned checkpoint that waits longer
// than the alignment timeout turns unaligned the same way. A newer barrier
// supersedes (aborts) a checkpoint still aligning; barriers of superseded
// or cancelled checkpoints are ignored.
//
// The snapshot is also the sink's pre-commit: the task's staged
// transactional outputs are written into checkpoint N with its state, and
// published after N completes.
package protocol
