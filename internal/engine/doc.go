// Package engine builds a pipeline from its config and runs it: sources
// from JetStream, operator tasks in wazero with host-owned keyed state in
// Pebble, outputs to JetStream, and the checkpoint coordinator whose
// barriers cut state and source positions consistently.
//
// # Parts
//
// The package is the composition root (pipeline.go: Open, Close; run.go:
// Run and the loop; serve.go: Serve with upgrades) with the task runtime
// and the I/O edge beside it; the parts with narrow interfaces have
// folders of their own:
//
//	CLI ── NATS request-reply ──► control/ (Handler: Trigger, Upgrade)
//	                                  │
//	┌──────────────── engine: the composition root ─────────────────┐
//	│                                                               │
//	│  I/O edge ──── chunks, barriers ────► task runtime            │
//	│  (sources,                           (tasks, instances,       │
//	│   outbox,  ◄──── outputs ──────────   state backends,         │
//	│   dead letters)                       protocol.Task)          │
//	│      │ positions                          │ acks              │
//	│      └─────────── reports ───────────────►│                   │
//	│                                           ▼                   │
//	│                  coordinator/ Driver ──► protocol.Coordinator │
//	│                      │ Effects (checkpoint_effects.go)        │
//	└──────────────────────┼────────────────────────────────────────┘
//	                       ▼
//	recovery/ (data dir, restore plan)   checkpoint, internal/state, natsio
//
// What each part holds:
//
//   - coordinator/ drives internal/protocol's Coordinator: it owns the
//     timer, receives the reports of sources and tasks on one channel, and
//     performs the core's actions through coordinator.Effects, which
//     checkpoint_effects.go implements on the pipeline.
//   - The task runtime (operator.go, task.go, task_checkpoint.go,
//     task_sweep.go, ttl.go, migrate.go) runs each task on its goroutine
//     and performs internal/protocol's Task actions (hold, snapshot, ack,
//     release).
//   - The I/O edge (source.go, sourceack.go, outbox.go, deadletters.go,
//     records.go, client.go) reads sources, routes records and barriers
//     to tasks, and publishes outputs and dead letters.
//   - The exchanges (exchange_*.go) carry an operator's outputs to the
//     operators that read them, through JetStream streams with barrier
//     markers in band (internal/exchange/FORMAT.md): the producer's tasks
//     publish to them, a source per edge reads them (exchange_align.go
//     decides, as a pure state machine, where it cuts each checkpoint).
//   - recovery/ owns the data dir and chooses and checks the checkpoint a
//     run restores; recovery.go here checks that the operators fit it.
//   - control/ is the control plane over NATS request-reply.
//   - crashpoint/ kills the process at named points for crash tests.
//   - Metrics and health (observe*.go) read the counters of the parts
//     above when internal/observe's endpoint is scraped; Options.Observer
//     attaches every pipeline opened with it (docs/metrics.md).
//
// Seams: Options.FS (the filesystem of the live state and of checkpoint
// writes, for fault injection), CheckpointOptions.Clock (the protocol's
// clock) and Options.Clock (processing time).
package engine
