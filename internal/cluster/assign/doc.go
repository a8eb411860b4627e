// Package assign is the cluster coordinator's decision of which worker
// runs which task (design ../../../shared/cluster.md §5.1 "Assignment",
// §5.5 live rescale), as pure functions: no I/O, no goroutines, no clock,
// only the standard library, like the checkpoint protocol core in
// internal/protocol. The coordinator reads membership and the pipeline,
// calls Plan, and writes the result with a fenced write; so every rule of
// the decision is tested here without a cluster, down to exhaustive
// comparisons with every balanced placement (optimal_test.go).
//
// # Model
//
// An operator has max_parallelism m key groups and parallelism p tasks;
// task i owns the key groups [i·m/p, (i+1)·m/p), the ranges the engine
// routes records by (state.RangeForTask). An [Assignment] (epoch A,
// written by coordinator generation G) places every task of every
// operator on a worker, and records for each task the checkpoint it
// restores from when its worker starts it. It is stored as the JSON record
// [Key] in the pipeline's control bucket ([Encode], [Decode]); the decoder
// is strict because other clients of the cluster can write that bucket.
//
// # Plan
//
// [Plan] computes assignment A+1 from A when workers join, leave or die,
// or when an operator's parallelism changes. Its rules, in order of
// priority (RisingWave's minimal vnode remap and Kafka Streams' sticky
// assignor are the models, design §3):
//
//  1. balance: per operator and over all operators, the task counts of
//     two workers differ by at most one, so no worker carries more than
//     its share of any operator;
//  2. stickiness: as few tasks move as balance allows. A task whose worker
//     is alive stays on it unless balance needs it elsewhere; a dead
//     worker's tasks go to the least loaded survivors. Moving a task costs
//     a handover checkpoint, a download of its state and a pause (§5.5);
//  3. locality on rescale: when an operator's parallelism changes, the
//     new tasks are placed so that as many key groups as balance allows
//     stay on the worker that held them: each new task goes, where it
//     can, to the worker with the largest overlap, and only the remainder
//     of the state is downloaded (§5.4).
//
// The three rules are one min-cost flow problem (network.go): the
// cheapest flow is the placement that is balanced and keeps the most
// state, and it is found exactly rather than by a heuristic whose corner
// cases would move more than needed. Plan returns the key-group ranges
// that change owner ([Move]); the coordinator attaches them to the
// handover checkpoint, and writes A+1 once that checkpoint completed.
//
// Plan is deterministic: workers and operators are sorted, and ties are
// broken by that order, so a coordinator that takes over recomputes the
// same plan from the same inputs.
//
// # Use
//
// Plan decides where tasks go, not when: the coordinator decides that a
// worker is dead (membership), waits out the stabilization delay and
// calls Plan with the workers it counts as live.
//
//   - Failover: Plan with the survivors and [Stamp].Restore = the latest
//     completed checkpoint, and write the result at once; the dead
//     worker cannot take part in a handover.
//   - Rescale, join, graceful leave: claim the handover checkpoint N, Plan
//     with Restore = N, trigger N with the moves attached, and write the
//     result once N completed (§5.5). If N fails the plan is dropped and
//     the old assignment stays; the next attempt plans again, and gets
//     the same placement.
//   - When Plan returns the previous assignment unchanged (same epoch, no
//     moves) there is nothing to write.
//
// [Changes] tells a worker which of its tasks stop and which start when
// the new assignment replaces the old one.
package assign
