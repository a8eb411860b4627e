// Package checkpoint holds the protocol logic of wasmstream checkpoints.
//
// Its first piece is the barrier [Aligner]: the decision logic of one operator
// task with N inputs while checkpoint barriers flow through it. Like the raft
// core of etcd, it is a pure state machine: no goroutines, no timers, no I/O.
// The task's run loop feeds it what arrived (a record or a barrier on an input,
// and the time elapsed since alignment started) and performs the actions and
// effects it returns, in order. This keeps every interleaving testable step by
// step (see testdata/aligner).
//
// Its second piece is the snapshot layer: [Write] takes a Pebble checkpoint
// (with the WAL flushed first, so unsynced writes are in it) and records every
// file's size and SHA-256 in a manifest written atomically; [Verify], [List],
// [Read] and [Retain] work on the checkpoint directory. The layout and the
// manifest are specified in FORMAT.md. Neither piece is wired into the engine
// yet.
//
// # Protocol
//
// The coordinator triggers checkpoint N. Each source injects barrier N into its
// output after the last record it emitted before N, so on every channel the
// records before barrier N belong to the state of checkpoint N and the records
// after it do not. Barrier ids start at 1 and strictly increase on each input.
//
// Aligned mode: after barrier N arrives on input i, records on input i are held
// (the caller buffers them, the aligner tells it which) until barrier N arrived
// on every input. Then the task snapshots its state, forwards barrier N, and the
// held records are released in arrival order. The snapshot therefore contains
// exactly the records before barrier N on every input.
//
// Unaligned mode: at the first barrier N the task snapshots at once and
// forwards the barrier. Records that then arrive on an input whose barrier N has
// not arrived yet precede barrier N, yet they are processed after the snapshot:
// they are in-flight channel state and the caller must log them as part of
// checkpoint N (and process them normally). Records on inputs whose barrier N
// already arrived follow it and are simply processed.
//
// Alignment timeout: the caller reports the time elapsed since the first
// barrier of the checkpoint in progress with [Aligner.Tick]. When it exceeds
// the configured timeout, an aligned checkpoint switches to unaligned: the task
// snapshots and forwards at once, and the held records are released and
// processed. Held records are NOT logged as channel state: they arrived after
// barrier N on their input, so sources replay them after a restore from N, and
// logging them too would apply them twice. From the switch on, records on
// inputs still waiting for barrier N are logged in-flight as in unaligned mode.
//
// One checkpoint at a time. A barrier with an id older than the newest
// checkpoint seen (superseded or cancelled) is ignored. A barrier with a newer
// id than the checkpoint in progress aborts the older one: its partial snapshot
// or channel-state log must be discarded and the coordinator told it declined.
// Held records are released on abort: they precede the newer barrier on their
// input, so they belong to the newer checkpoint's state. Checkpoint N is
// finished on this task when barrier N arrived on every input ([Complete]).
package checkpoint
